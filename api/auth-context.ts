import type { Account, Environment, KeyAccess } from '../db/models';

/** Who is calling: resolved from the API key on every authenticated request. */
export interface AuthContext {
  accountId: string;
  environment: Environment;
  apiKeyId: string;
  access: KeyAccess;
  account: Account;
}
