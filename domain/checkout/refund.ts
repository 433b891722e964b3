import { createHash } from 'node:crypto';
import type { Sequelize, Transaction } from 'sequelize';
import { appendLedgerEntry, pendingOfSession } from '../../db/ledger';
import { CheckoutRefund, CheckoutSession } from '../../db/models';
import { audit } from '../../db/outbox';
import { tenantWhere } from '../../db/tenancy';
import { AppError, invalidState, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { createPaymentProviders, ProviderError, type PaymentProviderConfig } from '../../lib/payment-provider';
import { auditActor, type AuthContext } from '../auth-context';
import type { RefundCheckoutSessionBody } from './inputs';

/** A refund as the merchant reads it: local refunds are bookkeeping, so they have succeeded when answered; a provider's is `pending` until its callback. */
export function toCheckoutRefundDto(refund: CheckoutRefund) {
  return {
    id: refund.id,
    accountId: refund.accountId,
    checkoutSessionId: refund.checkoutSessionId,
    amount: refund.amount,
    currency: refund.currency,
    reason: refund.reason,
    status: refund.status,
    createdAt: refund.createdAt.toISOString(),
  };
}

export type CheckoutRefundDto = ReturnType<typeof toCheckoutRefundDto>;

/**
 * What the merchant saw when asking for a refund (the dashboard's form, which has no Idempotency-Key): the refund
 * runs only while the session's refunded amount is still that, so a form sent twice refunds once.
 */
export interface RefundSeen {
  refundedAmount: number;
}

/**
 * Refunds part or all of what is left of a completed session, under the session's row lock, so concurrent refunds
 * queue and their sum never exceeds the amount (the table's CHECK holds it too). In the same transaction the
 * balance gives the amount back: first from what is still pending of this session, the rest from available, which
 * may go negative and is made good by later credits (docs/decisions/checkout.md, "Sessions API").
 *
 * A provider-mode session's refund is made at the provider, through the adapter, before commit: a provider that
 * does not take it is `502 PARTNER_UNAVAILABLE` and nothing is written. The call's reference and idempotency key
 * come from the merchant's `Idempotency-Key` when the request has one (see `providerReference`). The refund stays `pending` until the provider's callback settles it; `refund.created` and
 * `refund.succeeded` come on the provider's own channel, not from this service (document 2).
 */
export async function refundCheckoutSession(
  sequelize: Sequelize,
  config: PaymentProviderConfig,
  auth: AuthContext,
  sessionId: string,
  input: RefundCheckoutSessionBody,
  idempotencyKey?: string,
  seen?: RefundSeen,
): Promise<{ refund: CheckoutRefund; session: CheckoutSession }> {
  const tenant = tenantWhere(auth);
  return sequelize.transaction(async (tx) => {
    const session = await CheckoutSession.findOne({ where: { id: sessionId, ...tenant }, lock: tx.LOCK.UPDATE, transaction: tx });
    if (!session) throw notFound('Checkout session');
    if (session.status !== 'completed') throw invalidState(`This checkout session is ${session.status}; only a completed session can be refunded`);
    if (seen && session.refundedAmount !== seen.refundedAmount) {
      throw invalidState('This checkout session was refunded since the form was opened; nothing was refunded now. Check its refunds before refunding again');
    }
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
    if (session.backend === 'provider') await refundAtProvider(tx, config, session, refund, providerReference(session, refund, idempotencyKey));
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
      ...auditActor(auth),
      targetType: 'checkout_session',
      targetId: session.id,
      data: { refundId: refund.id, amount, currency: session.currency },
    });
    return { refund, session };
  });
}

/**
 * The provider call's `reference_id` and idempotency key. A provider that took a refund but whose answer was lost
 * (a timeout) leaves our request rolled back with `502`, and the idempotency layer releases the merchant's key so
 * the request can be retried. Derived from that key, the retry makes the very same call (same body, same key) and
 * the provider answers the refund it already made instead of refunding twice. Without a key there is nothing to
 * tie a retry to its first attempt, so the reference is our new refund id. Starts with `re_` like our ids, so a
 * callback racing our commit is answered `404` and retried (docs/decisions/payment-module.md).
 */
function providerReference(session: CheckoutSession, refund: CheckoutRefund, idempotencyKey: string | undefined): string {
  if (!idempotencyKey) return refund.id;
  const scope = `${session.accountId}:${session.environment}:${session.id}:${idempotencyKey}`;
  return `re_${createHash('sha256').update(scope).digest('hex').slice(0, 32)}`;
}

async function refundAtProvider(tx: Transaction, config: PaymentProviderConfig, session: CheckoutSession, refund: CheckoutRefund, referenceId: string): Promise<void> {
  // Provider sessions complete only by the provider's paid callback, which names the invoice we stored.
  if (!session.providerInvoiceId) throw new Error(`provider checkout session ${session.id} completed without a provider invoice`);
  const provider = createPaymentProviders(config).find(session.environment);
  if (!provider) throw new AppError('PARTNER_UNAVAILABLE', `No payment provider is configured for the ${session.environment} environment`);
  try {
    const made = await provider.createRefund({ referenceId, invoiceId: session.providerInvoiceId, amount: refund.amount, currency: refund.currency, reason: refund.reason });
    await refund.update({ providerRefundId: made.id, status: made.status }, { transaction: tx });
  } catch (err) {
    if (err instanceof ProviderError) throw new AppError('PARTNER_UNAVAILABLE', `The payment provider did not take the refund: ${err.message}`);
    throw err;
  }
}
