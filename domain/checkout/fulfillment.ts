import type { Sequelize, Transaction } from 'sequelize';
import { findEmailIdByBusinessKey } from '../../db/email-messages';
import { claimFulfillmentStep, recordFulfillmentStepResult } from '../../db/fulfillment-steps';
import { appendLedgerEntry } from '../../db/ledger';
import { CheckoutSession } from '../../db/models';
import { emit } from '../../db/outbox';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { requireEncryptionKey, type Config } from '../../lib/config';
import type { CryptoBox } from '../../lib/crypto-box';
import { newId } from '../../lib/ids';
import { createDownloadLinks } from '../deliveries';
import { redeemDiscount } from '../discounts';
import { commitReservations } from '../inventory';
import { createEmailQueue, recordEmailDelivery } from '../email';
import { recordCreditDue } from '../payouts';
import { recordReferralConversion } from '../referrals';
import { checkoutStockOwner } from './create';
import { toCheckoutSessionDto } from './dto';
import { deliverLine } from './fulfillment-delivery';
import { hostedCheckoutUrl } from './payment-backend';
import { checkoutReceipt } from './receipt';

/**
 * Fulfillment of a completed checkout session (docs/decisions/checkout.md, "Fulfillment"): a fixed list of named
 * steps, each applied in a transaction of its own that first claims the step's row in
 * `checkout_fulfillment_steps`; a step whose row exists did its work already and does nothing. A retried
 * activity, a replayed workflow or a second worker racing the first therefore apply each effect once.
 *
 * Step names are a contract with running workflows (a plan is recorded in their histories): a name is never
 * renamed or repurposed, only added.
 */
export const FULFILLMENT_STEPS = {
  discount: 'discount',
  stock: 'stock',
  referral: 'referral',
  balance: 'balance',
  completedEvent: 'event:checkout.completed',
  receipt: 'email:receipt',
  fulfilled: 'fulfilled',
} as const;

const DELIVERY_STEP = 'delivery:';
export const deliveryStep = (lineKey: string) => `${DELIVERY_STEP}${lineKey}`;

/**
 * The steps, in order, for a completed session. The discount is counted first, so the event and the receipt
 * say whether it applied; a session with variant lines then commits the stock it reserved (the goods are sold:
 * nothing held, if the module was off or the variants untracked when it was created), before the deliveries
 * that ship them; deliveries (each with its `product.purchased`) and the balance credit come before
 * `checkout.completed`, so a receiver of that event finds them; the receipt follows the deliveries whose links
 * and keys it carries; `fulfilled` stamps the end.
 */
export function planCheckoutFulfillment(session: Pick<CheckoutSession, 'discountId' | 'referralCode' | 'lineItems'>): string[] {
  return [
    ...(session.discountId ? [FULFILLMENT_STEPS.discount] : []),
    ...(session.lineItems.some((line) => line.variantId !== null) ? [FULFILLMENT_STEPS.stock] : []),
    ...session.lineItems.filter((line) => line.productId !== null).map((line) => deliveryStep(line.lineKey)),
    FULFILLMENT_STEPS.balance,
    ...(session.referralCode ? [FULFILLMENT_STEPS.referral] : []),
    FULFILLMENT_STEPS.completedEvent,
    FULFILLMENT_STEPS.receipt,
    FULFILLMENT_STEPS.fulfilled,
  ];
}

/**
 * How the session came to be `completed`, for `checkout.completed`'s `metadata.source` (docs/decisions/checkout.md).
 * The backend, fixed at creation, says it: a local session completes only by the merchant's confirm of
 * `pending_review` (document 2: `manual_confirm`); a provider session never reaches `pending_review` and completes
 * only by the provider's paid callback (`payment_provider`, our choice: the spec names no value for it).
 */
export function completionSource(session: Pick<CheckoutSession, 'backend'>): 'manual_confirm' | 'payment_provider' {
  return session.backend === 'provider' ? 'payment_provider' : 'manual_confirm';
}

/** The field a step was planned for; a step run on a session without it is a bug, not a no-op. */
function planned<T>(value: T | null, step: string, session: CheckoutSession): T {
  if (value === null) throw new Error(`fulfillment step "${step}" does not apply to checkout session ${session.id}`);
  return value;
}

export type StepOutcome = 'applied' | 'already_applied';

/**
 * Who sends the receipt the `email:receipt` step queues: its own `email-delivery` workflow, started from the step's
 * durable start (runs recorded before the receipt moved), or the session workflow right after the last step, which
 * hands it to that workflow only if its own attempt fails (docs/decisions/email.md, "The checkout receipt").
 */
export type ReceiptSender = 'email-delivery' | 'session';

const receiptKey = (sessionId: string) => `checkout_receipt:${sessionId}`;

export interface FulfillmentDeps {
  sequelize: Sequelize;
  config: Config;
  box: CryptoBox;
}

export function createCheckoutFulfillment({ sequelize, config, box }: FulfillmentDeps) {
  const emails = createEmailQueue({ box, config });
  const links = createDownloadLinks({ secret: requireEncryptionKey(config), publicBaseUrl: config.PUBLIC_BASE_URL });

  async function completedSession(tenant: Tenant, sessionId: string, tx?: Transaction): Promise<CheckoutSession> {
    const session = await CheckoutSession.findOne({ where: { id: sessionId, ...tenantWhere(tenant) }, ...(tx ? { lock: tx.LOCK.UPDATE, transaction: tx } : {}) });
    if (!session) throw new Error(`checkout session ${sessionId} does not exist in ${tenant.accountId}/${tenant.environment}`);
    // The workflow fulfils only after the row committed as completed; anything else is a bug to see and fix.
    if (session.status !== 'completed') throw new Error(`checkout session ${sessionId} is ${session.status}; only a completed session is fulfilled`);
    return session;
  }

  /** Each step's effect, in the step's transaction; answers what it wrote, kept on the step's row. */
  async function apply(tx: Transaction, tenant: Tenant, session: CheckoutSession, step: string, receiptSender: ReceiptSender): Promise<Record<string, unknown>> {
    if (step.startsWith(DELIVERY_STEP)) return { ...(await deliverLine(tx, tenant, session, step.slice(DELIVERY_STEP.length))) };
    switch (step) {
      case FULFILLMENT_STEPS.discount: {
        // Counted under the code's row lock; past its limits the payment stands and the session records that
        // the discount was not applied (the buyer keeps the price paid).
        const redemption = await redeemDiscount(tx, tenant, planned(session.discountId, step, session), {
          reference: session.id,
          customerEmail: session.customerEmail,
          customerId: session.customerId,
          amount: session.discountAmount,
        });
        await session.update({ discountApplied: redemption === 'applied' }, { transaction: tx });
        return { redemption };
      }
      case FULFILLMENT_STEPS.stock: {
        // Not gated on the module: a hold made while it was on is committed after it is switched off.
        return { committed: await commitReservations(tx, tenant, checkoutStockOwner(session.id)) };
      }
      case FULFILLMENT_STEPS.referral: {
        return { credited: await recordReferralConversion(tx, tenant, planned(session.referralCode, step, session)) };
      }
      case FULFILLMENT_STEPS.balance: {
        const id = newId('txn');
        // No fees in local mode: the net amount is the amount paid. It settles to `available` after the
        // environment's delay, released by the settlement sweep from the due mark written with the credit.
        const credited = await appendLedgerEntry(tx, tenant, {
          id,
          type: 'checkout_credit',
          sourceId: session.id,
          checkoutSessionId: session.id,
          currency: session.currency,
          pendingDelta: session.amount,
          availableDelta: 0,
        });
        if (credited) await recordCreditDue(tx, { sessionId: session.id });
        return { balanceTransactionId: id };
      }
      case FULFILLMENT_STEPS.completedEvent: {
        const dto = toCheckoutSessionDto(session, { hostedUrl: (s) => s.providerInvoiceUrl ?? hostedCheckoutUrl(config.PUBLIC_BASE_URL, s.id) });
        const event = await emit(tx, tenant, 'checkout.completed', { ...dto, metadata: { ...session.metadata, source: completionSource(session) } });
        return { eventId: event.id };
      }
      case FULFILLMENT_STEPS.receipt: {
        // Sent by the session workflow next, or recorded with its durable start for the worker's start relay.
        const { emailId, workflowId } = await emails.queue(
          tx,
          tenant,
          { kind: 'checkout_receipt', businessKey: receiptKey(session.id), to: session.customerEmail, data: await checkoutReceipt(tx, tenant, session, links) },
          { sender: receiptSender === 'session' ? 'caller' : 'email-delivery' },
        );
        return { emailId, emailWorkflowId: workflowId };
      }
      case FULFILLMENT_STEPS.fulfilled:
        await session.update({ fulfilledAt: new Date() }, { transaction: tx });
        return {};
      default:
        throw new Error(`unknown fulfillment step "${step}" of checkout session ${session.id}`);
    }
  }

  return {
    /** The steps for the workflow to run, from the completed row alone (so the same on every try). */
    async plan(tenant: Tenant, sessionId: string): Promise<string[]> {
      return planCheckoutFulfillment(await completedSession(tenant, sessionId));
    },

    /**
     * Applies one step once. The session row is locked first (every step takes its locks in the same order:
     * session, step row, then the shared rows a step touches such as the discount code or the balance), so
     * steps of one session never interleave with each other or with a refund.
     */
    async runStep(tenant: Tenant, sessionId: string, step: string, receiptSender: ReceiptSender = 'email-delivery'): Promise<StepOutcome> {
      return sequelize.transaction(async (tx) => {
        const session = await completedSession(tenant, sessionId, tx);
        if (!(await claimFulfillmentStep(tx, session.id, step))) return 'already_applied';
        await recordFulfillmentStepResult(tx, session.id, step, await apply(tx, tenant, session, step, receiptSender));
        return 'applied';
      });
    },

    /** The receipt the `email:receipt` step queued; its absence after that step is a bug to see, not a no-op. */
    async receiptEmailId(tenant: Tenant, sessionId: string): Promise<string> {
      const emailId = await findEmailIdByBusinessKey(sequelize, tenant, receiptKey(sessionId));
      if (!emailId) throw new Error(`checkout session ${sessionId} has no queued receipt`);
      return emailId;
    },

    /**
     * The session's own attempt at the receipt failed: its `email-delivery` workflow takes it over, recorded here
     * and started by the start relay, with that workflow's retries for a day, the stuck-work view and the give-up.
     */
    async handOffReceipt(tenant: Tenant, sessionId: string): Promise<string> {
      return sequelize.transaction(async (tx) => {
        const emailId = await findEmailIdByBusinessKey(sequelize, tenant, receiptKey(sessionId), tx);
        if (!emailId) throw new Error(`checkout session ${sessionId} has no queued receipt`);
        return recordEmailDelivery(tx, tenant, emailId);
      });
    },
  };
}

export type CheckoutFulfillment = ReturnType<typeof createCheckoutFulfillment>;
