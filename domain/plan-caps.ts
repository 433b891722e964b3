import type { Transaction } from 'sequelize';
import { lockAccount } from '../db/locks';
import { countTowardCap, type CappedResource } from '../db/plan-caps';
import { quotaExceeded } from '../lib/errors';
import { planLimits } from '../lib/plan-limits';
import type { AuthContext } from './auth-context';

/** How a refusal at each cap names what is counted (db/plan-caps.ts says what counts), and what the caller can do. */
const REFUSAL: Record<CappedResource, { noun: string; hint: string }> = {
  products: { noun: 'products', hint: 'archive one or upgrade' },
  webhookEndpoints: { noun: 'webhook endpoints per environment', hint: 'delete one or upgrade' },
  customers: { noun: 'customers', hint: 'upgrade for more' },
  subscriptions: { noun: 'subscriptions (not canceled)', hint: 'cancel one or upgrade' },
  plans: { noun: 'active plans', hint: 'archive one or upgrade' },
};

/**
 * The one plan-cap check: in the caller's transaction, takes the workspace's quota lock (so two concurrent
 * creates at the cap cannot both count N-1 and insert) and refuses with 403 QUOTA_EXCEEDED at the cap.
 * Call it before inserting the new row; the lock is held until the transaction ends.
 */
export async function enforcePlanCap(tx: Transaction, caller: Pick<AuthContext, 'accountId' | 'environment' | 'account'>, resource: CappedResource): Promise<void> {
  const cap = planLimits(caller.account.plan)[resource];
  if (cap === null) return;
  await lockAccount(tx, caller.accountId);
  if ((await countTowardCap(tx, caller, resource)) >= cap) {
    const { noun, hint } = REFUSAL[resource];
    throw quotaExceeded(`The ${caller.account.plan} plan allows ${cap} ${noun}; ${hint}`);
  }
}
