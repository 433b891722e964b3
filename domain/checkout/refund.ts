import type { Sequelize } from 'sequelize';
import { appendLedgerEntry, pendingOfSession } from '../../db/ledger';
import { CheckoutRefund, CheckoutSession } from '../../db/models';
import { audit } from '../../db/outbox';
import { tenantWhere } from '../../db/tenancy';
import { AppError, invalidState, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AuthContext } from '../auth-context';
import type { RefundCheckoutSessionBody } from './inputs';

/** A refund as the merchant reads it; local refunds are bookkeeping, so they have succeeded when answered. */
export function toCheckoutRefundDto(refund: CheckoutRefund) {
  return {
    id: refund.id,
    accountId: refund.accountId,
    checkoutSessionId: refund.checkoutSessionId,
    amount: refund.amount,
    currency: refund.currency,
    reason: refund.reason,
    status: 'succeeded' as const,
    createdAt: refund.createdAt.toISOString(),
  };
}

export type CheckoutRefundDto = ReturnType<typeof toCheckoutRefundDto>;

/**
 * Refunds part or all of what is left of a completed session, under the session's row lock, so concurrent refunds
 * queue and their sum never exceeds the amount (the table's CHECK holds it too). In the same transaction the
 * balance gives the amount back: first from what is still pending of this session, the rest from available, which
 * may go negative and is made good by later credits (docs/decisions/checkout.md, "Sessions API").
 */
export async function refundCheckoutSession(
  sequelize: Sequelize,
  auth: AuthContext,
  sessionId: string,
  input: RefundCheckoutSessionBody,
): Promise<{ refund: CheckoutRefund; session: CheckoutSession }> {
  const tenant = tenantWhere(auth);
  return sequelize.transaction(async (tx) => {
    const session = await CheckoutSession.findOne({ where: { id: sessionId, ...tenant }, lock: tx.LOCK.UPDATE, transaction: tx });
    if (!session) throw notFound('Checkout session');
    if (session.status !== 'completed') throw invalidState(`This checkout session is ${session.status}; only a completed session can be refunded`);
    const remaining = session.amount - session.refundedAmount;
    if (remaining === 0) throw invalidState('This checkout session is fully refunded');
    const amount = input.amount ?? remaining;
    if (amount > remaining) {
      throw new AppError('VALIDATION_ERROR', `amount: at most ${remaining}, what is left unrefunded of this session`, [
        { field: 'amount', message: `at most ${remaining}` },
      ]);
    }
    const refund = await CheckoutRefund.create(
      { id: newId('re'), ...tenant, checkoutSessionId: session.id, amount, currency: session.currency, reason: input.reason ?? null },
      { transaction: tx },
    );
    await session.update({ refundedAmount: session.refundedAmount + amount }, { transaction: tx });
    const fromPending = Math.min(amount, Math.max(await pendingOfSession(tx, session.id), 0));
    await appendLedgerEntry(tx, tenant, {
      id: newId('txn'),
      type: 'refund',
      sourceId: refund.id,
      checkoutSessionId: session.id,
      currency: session.currency,
      pendingDelta: -fromPending,
      availableDelta: -(amount - fromPending),
    });
    await audit(tx, tenant, {
      action: 'checkout_session.refunded',
      actorApiKeyId: auth.apiKeyId,
      targetType: 'checkout_session',
      targetId: session.id,
      data: { refundId: refund.id, amount, currency: session.currency },
    });
    return { refund, session };
  });
}
