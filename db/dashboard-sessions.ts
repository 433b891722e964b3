import type { Sequelize } from 'sequelize';
import type { Environment, MembershipRole, Plan } from './models';
import { plainQuery } from './plain-query';

/** Dashboard sessions' reads (domain/users/sessions.ts holds their rules). */

/** A workspace a dashboard user belongs to, for the switcher. */
export interface WorkspaceChoice {
  id: string;
  name: string;
  role: MembershipRole;
}

export interface DashboardSessionRow {
  sessionId: string;
  userId: string;
  email: string;
  role: MembershipRole;
  environment: Environment;
  csrfToken: string;
  expiresAt: Date;
  accountId: string;
  name: string;
  slug: string | null;
  plan: Plan;
  fulfillmentEnabled: boolean;
  paymentEnabled: boolean;
}

/** A session counts only while unexpired and while its user is still a member of the workspace it shows. */
const SESSION_SQL = `SELECT s.id AS "sessionId", s.user_id AS "userId", u.email, m.role, s.environment, s.csrf_token AS "csrfToken",
       s.expires_at AS "expiresAt", a.id AS "accountId", a.name, a.slug, a.plan,
       a.fulfillment_enabled AS "fulfillmentEnabled", a.payment_enabled AS "paymentEnabled"
  FROM dashboard_sessions s
  JOIN users u ON u.id = s.user_id
  JOIN memberships m ON m.user_id = s.user_id AND m.account_id = s.account_id
  JOIN accounts a ON a.id = s.account_id
 WHERE s.token_hash = $1 AND s.expires_at > now()`;

const WORKSPACES_SQL = `SELECT a.id, a.name, m.role FROM memberships m JOIN accounts a ON a.id = m.account_id
 WHERE m.user_id = $1 ORDER BY lower(a.name), a.id`;

/** The session behind a token's hash, with its user, role and workspace; null when there is none that counts. */
export async function readDashboardSession(sequelize: Sequelize, tokenHash: string): Promise<DashboardSessionRow | null> {
  const [row] = await plainQuery<DashboardSessionRow>(sequelize, SESSION_SQL, [tokenHash]);
  return row ?? null;
}

/** Every workspace the user belongs to, by name. */
export function readUserWorkspaces(sequelize: Sequelize, userId: string): Promise<WorkspaceChoice[]> {
  return plainQuery<WorkspaceChoice>(sequelize, WORKSPACES_SQL, [userId]);
}
