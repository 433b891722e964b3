import type { Sequelize } from 'sequelize';
import { CheckoutSession, type CheckoutStatus } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';

/**
 * The session's deadline, acted on by its workflow: under the row lock (so it races neither the buyer's pay nor
 * the merchant's confirm), an `open` session whose `expiresAt` is at or before `now` becomes `expired`. Answers
 * the status it leaves either way: `pending_review` (the buyer paid in time: wait for the merchant), `completed`
 * (fulfil), `expired`, or still `open` when called before the deadline.
 */
export async function expireCheckoutIfOpen(sequelize: Sequelize, tenant: Tenant, sessionId: string, now: Date): Promise<CheckoutStatus> {
  return sequelize.transaction(async (tx) => {
    const session = await CheckoutSession.findOne({ where: { id: sessionId, ...tenantWhere(tenant) }, lock: tx.LOCK.UPDATE, transaction: tx });
    if (!session) throw new Error(`checkout session ${sessionId} does not exist in ${tenant.accountId}/${tenant.environment}`);
    if (session.status !== 'open' || session.expiresAt > now) return session.status;
    await session.update({ status: 'expired', expiredAt: now }, { transaction: tx });
    // Stock held for the session (inventory, with the fulfilment module) is released here, in this transaction.
    return session.status;
  });
}
