import { QueryTypes, type Transaction } from 'sequelize';
import { lockAccount } from '../db/locks';
import { connectionOf } from '../db/outbox';
import { tenantWhere } from '../db/tenancy';
import { quotaExceeded } from '../lib/errors';
import { planLimits } from '../lib/plan-limits';
import type { AuthContext } from './auth-context';

/** The row counts a plan caps, per workspace and environment: what counts toward each cap. */
const COUNTED = {
  products: { noun: 'products', hint: 'archive one or upgrade', sql: 'SELECT count(*)::int AS n FROM products WHERE account_id = :accountId AND environment = :environment AND NOT archived' },
  webhookEndpoints: {
    noun: 'webhook endpoints per environment',
    hint: 'delete one or upgrade',
    // The service's own (system) endpoints do not count.
    sql: 'SELECT count(*)::int AS n FROM webhook_endpoints WHERE account_id = :accountId AND environment = :environment AND system_kind IS NULL',
  },
  customers: { noun: 'customers', hint: 'upgrade for more', sql: 'SELECT count(*)::int AS n FROM customers WHERE account_id = :accountId AND environment = :environment' },
  // A canceled subscription frees its slot.
  subscriptions: {
    noun: 'subscriptions (not canceled)',
    hint: 'cancel one or upgrade',
    sql: "SELECT count(*)::int AS n FROM subscriptions WHERE account_id = :accountId AND environment = :environment AND status <> 'canceled'",
  },
  // Archived plans accept no new subscriptions, so they free their slot.
  plans: { noun: 'active plans', hint: 'archive one or upgrade', sql: 'SELECT count(*)::int AS n FROM plans WHERE account_id = :accountId AND environment = :environment AND active' },
} as const;

export type CappedResource = keyof typeof COUNTED;

/**
 * The one plan-cap check: in the caller's transaction, takes the workspace's quota lock (so two concurrent
 * creates at the cap cannot both count N-1 and insert) and refuses with 403 QUOTA_EXCEEDED at the cap.
 * Call it before inserting the new row; the lock is held until the transaction ends.
 */
export async function enforcePlanCap(tx: Transaction, caller: Pick<AuthContext, 'accountId' | 'environment' | 'account'>, resource: CappedResource): Promise<void> {
  const cap = planLimits(caller.account.plan)[resource];
  if (cap === null) return;
  await lockAccount(tx, caller.accountId);
  const counted = COUNTED[resource];
  const [row] = await connectionOf(tx).query<{ n: number }>(counted.sql, {
    replacements: tenantWhere(caller),
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  if ((row?.n ?? 0) >= cap) throw quotaExceeded(`The ${caller.account.plan} plan allows ${cap} ${counted.noun}; ${counted.hint}`);
}
