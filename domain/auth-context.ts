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

/**
 * Who is calling: resolved from the API key on every authenticated request, or from a dashboard session (a
 * signed-in user acting on the workspace and environment the session shows, with a secret key's reach).
 */
export interface AuthContext {
  accountId: string;
  environment: Environment;
  /** The API key of the request; null when a dashboard user acts. */
  apiKeyId: string | null;
  /** The dashboard user acting; absent on API requests. */
  userId?: string;
  access: KeyAccess;
  account: WorkspaceSummary;
}

/** Who acted, as an audit entry records it: the API key, or the dashboard user. */
export function auditActor(auth: Pick<AuthContext, 'apiKeyId' | 'userId'>): { actorApiKeyId: string | null; actorUserId: string | null } {
  return { actorApiKeyId: auth.apiKeyId, actorUserId: auth.userId ?? null };
}

/** Who moved stock by hand: the API key, or the dashboard user. */
export function stockActor(auth: Pick<AuthContext, 'apiKeyId' | 'userId'>): { type: 'api_key' | 'user'; id: string } {
  if (auth.userId) return { type: 'user', id: auth.userId };
  if (!auth.apiKeyId) throw new Error('an AuthContext names an API key or a user');
  return { type: 'api_key', id: auth.apiKeyId };
}
