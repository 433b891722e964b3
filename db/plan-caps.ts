import { QueryTypes, type Transaction } from 'sequelize';
import { connectionOf } from './outbox';
import type { Tenant } from './tenancy';

/** What counts toward each plan cap, per workspace and environment; the caps and their refusals live in domain/plan-caps.ts. */
const COUNT_SQL = {
  products: 'SELECT count(*)::int AS n FROM products WHERE account_id = :accountId AND environment = :environment AND NOT archived',
  // The service's own (system) endpoints do not count.
  webhookEndpoints: 'SELECT count(*)::int AS n FROM webhook_endpoints WHERE account_id = :accountId AND environment = :environment AND system_kind IS NULL',
  customers: 'SELECT count(*)::int AS n FROM customers WHERE account_id = :accountId AND environment = :environment',
  // A canceled subscription frees its slot.
  subscriptions: "SELECT count(*)::int AS n FROM subscriptions WHERE account_id = :accountId AND environment = :environment AND status <> 'canceled'",
  // Archived plans accept no new subscriptions, so they free their slot.
  plans: 'SELECT count(*)::int AS n FROM plans WHERE account_id = :accountId AND environment = :environment AND active',
} as const;

export type CappedResource = keyof typeof COUNT_SQL;

/** The tenant's rows that count toward the resource's cap, in the caller's transaction. */
export async function countTowardCap(tx: Transaction, tenant: Tenant, resource: CappedResource): Promise<number> {
  const [row] = await connectionOf(tx).query<{ n: number }>(COUNT_SQL[resource], {
    replacements: { accountId: tenant.accountId, environment: tenant.environment },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return row?.n ?? 0;
}
