import type { Environment, KeyAccess, Plan } from '../db/models';

/** The calling workspace as authentication loads it (one query with the key). */
export interface WorkspaceSummary {
  id: string;
  name: string;
  slug: string | null;
  plan: Plan;
  fulfillmentEnabled: boolean;
  paymentEnabled: boolean;
}

/** Who is calling: resolved from the API key on every authenticated request. */
export interface AuthContext {
  accountId: string;
  environment: Environment;
  apiKeyId: string;
  access: KeyAccess;
  account: WorkspaceSummary;
}
