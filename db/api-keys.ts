import type { Sequelize } from 'sequelize';
import type { Environment, KeyAccess, Plan } from './models';
import { plainQuery } from './plain-query';

/**
 * The key lookup, by hash. One round trip on every authenticated request (unless cached), so plain SQL selecting
 * only what AuthContext needs; exported so the bench's ceilings send the very same statement.
 */
export const ACTIVE_KEY_SQL = `SELECT k.id, k.account_id AS "accountId", k.environment, k.access, k.key_hash AS "keyHash",
                k.last_used_at AS "lastUsedAt", k.expires_at AS "expiresAt", a.name, a.slug, a.plan,
                a.fulfillment_enabled AS "fulfillmentEnabled", a.payment_enabled AS "paymentEnabled"
           FROM api_keys k JOIN accounts a ON a.id = k.account_id
          WHERE k.key_hash = $1 AND k.revoked_at IS NULL`;

/** An unrevoked key with its workspace's columns, as ACTIVE_KEY_SQL reads it; whether a rotated one has expired is the domain's call. */
export interface ActiveKeyRow {
  id: string;
  accountId: string;
  environment: Environment;
  access: KeyAccess;
  keyHash: string;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  name: string;
  slug: string | null;
  plan: Plan;
  fulfillmentEnabled: boolean;
  paymentEnabled: boolean;
}

/** The unrevoked key of this hash, named and prepared (docs/decisions/data-access.md); undefined when none. */
export async function readActiveKey(sequelize: Sequelize, keyHash: string): Promise<ActiveKeyRow | undefined> {
  const [row] = await plainQuery<ActiveKeyRow>(sequelize, ACTIVE_KEY_SQL, [keyHash]);
  return row;
}
