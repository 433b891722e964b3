import type { Transaction } from 'sequelize';
import { CheckoutRefund, CheckoutSession, Payout } from '../../db/models';
import { audit, emit } from '../../db/outbox';
import { claimProviderEvent, recordProviderEventOutcome } from '../../db/payment-provider';
import type { Tenant } from '../../db/tenancy';
import { AppError, notFound } from '../../lib/errors';
import { createPaymentProviders, ProviderError, type CallbackRefusal, type PaymentProvider, type ProviderEvent } from '../../lib/payment-provider';
import { completeLockedSession } from '../checkout';
import { settleInvoiceOfCompletedSession } from '../invoices';
import { applyPayoutMove, canMovePayout, toPayoutDto, type PayoutMove } from '../payouts';
import type { ServiceDeps } from '../service-deps';
import { startRecordedNow } from '../workflow-starts';

/** A callback whose token matched one environment's provider account, read into an event. */
export interface VerifiedCallback {
  environment: 'test' | 'live';
  event: ProviderEvent;
}

export interface CallbackAnswer {
  received: true;
  eventId: string;
  /** What it did: `applied`, `duplicate` (received before: nothing changed), `ignored` (nothing to do), or why not. */
  outcome: string;
}

type Refusal = CallbackRefusal | 'not_configured';
const refused = (reason: Refusal, message: string) => new AppError('UNAUTHORIZED', message, { reason });

interface Applied {
  accountId: string | null;
  outcome: string;
  starts: string[];
}

const nothing = (outcome: string, accountId: string | null = null): Applied => ({ accountId, outcome, starts: [] });
const tenantOf = (row: { accountId: string; environment: 'test' | 'live' }): Tenant => ({ accountId: row.accountId, environment: row.environment });

/**
 * The provider's inbound callbacks (docs/decisions/payment-module.md, Inbound callbacks). The token says which
 * environment's provider account sent it (each has its own token); the object it names is looked up by the
 * provider id we stored when we created it, in that environment, so a callback can only touch what we asked
 * that account for, never what an id in its body claims. Each event id is claimed once, in the transaction that
 * applies it: a duplicate or replay answers 200 and changes nothing.
 */
export function createProviderCallbackService(deps: Pick<ServiceDeps, 'sequelize' | 'config' | 'logger' | 'starters' | 'box'>) {
  const { sequelize, logger, box } = deps;
  const providers = createPaymentProviders(deps.config);
  const accounts = (['live', 'test'] as const).map((environment) => ({ environment, provider: providers.find(environment) })).filter((a): a is { environment: 'test' | 'live'; provider: PaymentProvider } => a.provider !== null);

  async function applyInvoice(tx: Transaction, environment: 'test' | 'live', event: Extract<ProviderEvent, { kind: 'invoice' }>, now: Date): Promise<Applied> {
    const session = await CheckoutSession.findOne({ where: { environment, providerInvoiceId: event.invoiceId }, lock: tx.LOCK.UPDATE, transaction: tx });
    // Unknown here: not ours, or its creation has not committed yet; 404 lets the provider retry, nothing is kept.
    if (!session || session.id !== event.externalId) throw notFound('Checkout session for this invoice');
    const tenant = tenantOf(session);
    if (event.status === 'expired') return nothing(session.status === 'open' ? 'ignored_expiry_follows_session' : 'ignored', session.accountId);
    if (event.paidAmount !== null && (event.paidAmount !== session.amount || event.currency !== session.currency)) {
      logger.error({ sessionId: session.id, paid: event.paidAmount, currency: event.currency }, 'provider reports a payment that does not match the session; not completed');
      await audit(tx, tenant, { action: 'checkout_session.payment_mismatch', actorApiKeyId: null, targetType: 'checkout_session', targetId: session.id, data: { invoiceId: event.invoiceId, paidAmount: event.paidAmount, currency: event.currency } });
      return nothing('amount_mismatch', session.accountId);
    }
    if (session.status === 'open') {
      const start = await completeLockedSession(tx, tenant, session, now, settleInvoiceOfCompletedSession, { paymentMethod: event.paymentMethod ?? session.paymentMethod, paidAt: event.occurredAt });
      return { accountId: session.accountId, outcome: 'applied', starts: [start] };
    }
    if (session.status === 'completed') return nothing('already_completed', session.accountId);
    // Paid after the session expired (or failed): it will not be fulfilled, so the money goes back, in full, at
    // the provider. The call is idempotent (our reference), and made before commit: if it fails, the 502 makes
    // the provider retry this callback, and the refund with it.
    const provider = providers.forEnvironment(environment);
    const refund = await provider.createRefund({ referenceId: `late_${session.id}`, invoiceId: event.invoiceId, amount: event.paidAmount ?? session.amount, currency: session.currency, reason: 'paid after the checkout session expired' });
    await audit(tx, tenant, { action: 'checkout_session.late_payment_refunded', actorApiKeyId: null, targetType: 'checkout_session', targetId: session.id, data: { invoiceId: event.invoiceId, providerRefundId: refund.id, amount: event.paidAmount ?? session.amount } });
    logger.warn({ sessionId: session.id, status: session.status, providerRefundId: refund.id }, 'payment after the session ended: refunded at the provider');
    return nothing('refunded_late_payment', session.accountId);
  }

  async function applyDisbursement(tx: Transaction, environment: 'test' | 'live', event: Extract<ProviderEvent, { kind: 'disbursement' }>, now: Date): Promise<Applied> {
    const payout = await Payout.findOne({ where: { environment, providerDisbursementId: event.disbursementId }, lock: tx.LOCK.UPDATE, transaction: tx });
    if (!payout || payout.id !== event.externalId) throw notFound('Payout for this disbursement');
    const move: PayoutMove = event.status === 'completed' ? { to: 'paid', reference: event.disbursementId } : { to: 'failed', failureReason: event.failureCode ?? 'FAILED' };
    // Only forward, from in_transit: a repeated or out-of-order status changes nothing.
    if (!canMovePayout(payout, move)) return nothing(`ignored_${payout.status}`, payout.accountId);
    const tenant = tenantOf(payout);
    const start = await applyPayoutMove(tx, tenant, payout, move, now);
    await emit(tx, tenant, move.to === 'paid' ? 'payout.paid' : 'payout.failed', toPayoutDto(payout.get(), box));
    return { accountId: payout.accountId, outcome: 'applied', starts: [start] };
  }

  async function applyRefund(tx: Transaction, environment: 'test' | 'live', event: Extract<ProviderEvent, { kind: 'refund' }>): Promise<Applied> {
    const refund = await CheckoutRefund.findOne({ where: { environment, providerRefundId: event.refundId }, lock: tx.LOCK.UPDATE, transaction: tx });
    if (!refund) {
      // One of our refunds whose row has not committed yet (the provider can call back before our transaction
      // ends): 404, so the provider retries once it has. A late payment's refund has no row of ours: acknowledged.
      if (event.referenceId?.startsWith('re_')) throw notFound('Refund for this provider refund');
      return nothing('ignored_unknown_refund');
    }
    if (refund.status !== 'pending') return nothing('ignored', refund.accountId);
    await refund.update({ status: event.status }, { transaction: tx });
    return nothing('applied', refund.accountId);
  }

  return {
    /**
     * Checks a callback exactly as received, before its body is parsed by anything else: against every configured
     * account's token (each compared in constant time, all of them always), then the event's timestamp.
     */
    verify(rawBody: Buffer, header: (name: string) => string | undefined, now = new Date()): VerifiedCallback {
      if (accounts.length === 0) throw refused('not_configured', 'No payment provider is configured (PAYMENT_PROVIDER_BASE_URL)');
      const verdicts = accounts.map(({ environment, provider }) => ({ environment, verdict: provider.verifyCallback(rawBody, header, now) }));
      const accepted = verdicts.find((v) => v.verdict.valid);
      if (accepted?.verdict.valid) return { environment: accepted.environment, event: accepted.verdict.event };
      // The token matched nowhere, or matched and the body or its time was wrong: say which.
      const reasons = verdicts.map((v) => (v.verdict.valid ? null : v.verdict.reason));
      const reason = reasons.find((r) => r !== 'token_mismatch' && r !== null) ?? reasons[0] ?? 'token_mismatch';
      throw refused(reason, `The provider callback is refused (${reason})`);
    },

    async receive({ environment, event }: VerifiedCallback, now = new Date()): Promise<CallbackAnswer> {
      let applied: Applied;
      try {
        applied = await sequelize.transaction(async (tx) => {
          if (!(await claimProviderEvent(tx, { environment, eventId: event.eventId, kind: event.kind, occurredAt: event.occurredAt }))) return nothing('duplicate');
          let result: Applied;
          switch (event.kind) {
            case 'invoice':
              result = await applyInvoice(tx, environment, event, now);
              break;
            case 'disbursement':
              result = await applyDisbursement(tx, environment, event, now);
              break;
            case 'refund':
              result = await applyRefund(tx, environment, event);
              break;
            case 'unknown':
              logger.info({ environment, eventId: event.eventId, type: event.type }, 'provider callback of a type we do not act on: acknowledged');
              result = nothing('ignored_unknown_type');
              break;
          }
          await recordProviderEventOutcome(tx, { environment, eventId: event.eventId }, result.accountId, result.outcome);
          return result;
        });
      } catch (err) {
        if (err instanceof ProviderError) throw new AppError('PARTNER_UNAVAILABLE', `The payment provider did not take the refund of a late payment: ${err.message}`);
        throw err;
      }
      for (const start of applied.starts) await startRecordedNow(deps, start);
      return { received: true, eventId: event.eventId, outcome: applied.outcome };
    },
  };
}

export type ProviderCallbackService = ReturnType<typeof createProviderCallbackService>;
