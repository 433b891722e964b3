import type { Environment, KeyAccess } from '../../db/models';
import type { WorkspaceSummary } from '../auth-context';

/** An active key with its workspace, as authentication needs it. */
export interface ActiveKey {
  id: string;
  accountId: string;
  environment: Environment;
  access: KeyAccess;
  keyHash: string;
  lastUsedAt: Date | null;
  /** A rotated key's deadline; null otherwise. */
  expiresAt: Date | null;
  account: WorkspaceSummary;
}
