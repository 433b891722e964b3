import type { Transaction } from 'sequelize';
import { Customer, PAYMENT_METHODS, type Invoice, type Subscription } from '../../db/models';
import { emit } from '../../db/outbox';
import type { Tenant } from '../../db/tenancy';
import type { Config } from '../../lib/config';
import { createPaymentProviders, ProviderError, type ChargeResult, type PaymentProvider, type PaymentProviderConfig } from '../../lib/payment-provider';
import { MAX_CHECKOUT_LIFETIME_MS, insertCheckoutSession } from '../checkout';
import { toInvoiceDto } from '../invoices';

/** What choosing and running a charge backend reads from the configuration. */
export type ChargeBackendConfig = Pick<Config, 'LOCAL_INVOICE_DUE' | 'SUBSCRIPTION_RETRY_SCHEDULE' | 'PUBLIC_BASE_URL'> & PaymentProviderConfig;

/** The failure code of an attempt whose charge the provider has not confirmed yet. */
export const PENDING_FAILURE_CODE = 'payment_pending';

/** The customer's metadata key naming the saved payment method a provider-mode subscription charges. */
export const PAYMENT_METHOD_METADATA_KEY = 'paymentMethodId';

/** One charge of a subscription: the invoice about to be issued for it (its id is known, its number not yet) and whom it bills. */
export interface ChargeRequest {
  invoiceId: string;
  subscriptionId: string;
  amount: number;
  currency: string;
  /** What the buyer sees on the payment page. */
  description: string;
  customer: Pick<Customer, 'id' | 'email' | 'name'>;
  /** The subscription's time (its test clock's, when it has one): the invoice's due date counts from it. */
  now: Date;
}

/** How the invoice is to be issued: when it is judged, the session collecting it, or paid already. */
export interface ChargeCollection {
  dueAt: Date;
  checkoutSessionId: string | null;
  paid: boolean;
  /** Workflows recorded for durable start (a request starts them after its commit; the start relay would). */
  workflowIds: string[];
}

/**
 * How a subscription's charges are collected, chosen per workspace like the checkout payment backend. The
 * subscription workflow only asks when a charge is due and, at that moment and at each dunning retry, whether
 * it was paid; it never knows which backend answers.
 */
export interface SubscriptionChargeBackend {
  readonly mode: 'local' | 'provider';
  /** Starts collecting the charge, in the issuing transaction, before its invoice is written. */
  collect(tx: Transaction, tenant: Tenant, request: ChargeRequest): Promise<ChargeCollection>;
  /**
   * The charge is due (`attempt: 1`) or retried (`2`…): local mode checks the invoice, which the buyer pays on its
   * hosted page (`paid` is the invoice's own status); a provider backend charges the saved method here.
   */
  attempt(tx: Transaction, tenant: Tenant, invoice: Invoice, attempt: number, at: Date): Promise<'paid' | 'failed'>;
}

/**
 * Local mode (ARCHITECTURE.md, "Local-mode subscription charges"): the invoice is paid on the hosted page of a
 * checkout session created for it (`metadata.checkoutSessionId` on the invoice, `metadata.invoiceId` on the
 * session); still unpaid `LOCAL_INVOICE_DUE` after issue, the charge has failed, and each retry looks at the same
 * invoice, so the session stays payable until the last retry has passed (and a day more, at most 30 days). A
 * zero-amount invoice (a credit covered it) is paid as it is issued.
 */
export function createLocalChargeBackend(config: Pick<Config, 'LOCAL_INVOICE_DUE' | 'SUBSCRIPTION_RETRY_SCHEDULE'>): SubscriptionChargeBackend {
  const lastRetry = config.SUBSCRIPTION_RETRY_SCHEDULE.at(-1) ?? 0;
  const payableFor = Math.min(config.LOCAL_INVOICE_DUE + lastRetry + 86_400_000, MAX_CHECKOUT_LIFETIME_MS);
  return {
    mode: 'local',
    async collect(tx, tenant, { invoiceId, subscriptionId, amount, currency, description, customer, now }) {
      if (amount === 0) return { dueAt: now, checkoutSessionId: null, paid: true, workflowIds: [] };
      if (!customer.email) throw new Error(`customer ${customer.id} has no e-mail: a local-mode invoice cannot be collected`);
      // The session lives in real time (its own workflow expires it), whatever clock the subscription runs on.
      const realNow = new Date();
      const { session, workflowId } = await insertCheckoutSession(
        tx,
        tenant,
        {
          source: 'invoice',
          amount,
          currency,
          description,
          customerEmail: customer.email,
          customerName: customer.name,
          customerId: customer.id,
          paymentMethods: [...PAYMENT_METHODS],
          lineItems: [],
          subtotal: amount,
          expiresAt: new Date(realNow.getTime() + payableFor),
          metadata: { invoiceId, subscriptionId },
          backend: 'local',
        },
        realNow,
      );
      return { dueAt: new Date(now.getTime() + config.LOCAL_INVOICE_DUE), checkoutSessionId: session.id, paid: false, workflowIds: [workflowId] };
    },
    async attempt(tx, _tenant, invoice) {
      await invoice.reload({ transaction: tx, lock: tx.LOCK.UPDATE });
      return invoice.status === 'paid' ? 'paid' : 'failed';
    },
  };
}

/**
 * Provider mode (the payment module; docs/decisions/payment-module.md, Subscriptions): each charge is due as its
 * invoice is issued and charged at once, by the subscription's workflow, to the customer's saved payment method at
 * the provider (the customer's `metadata.paymentMethodId`); each dunning retry charges it again, so a customer whose
 * method was replaced between retries recovers at the next one. The invoice's events come with it: `invoice.paid`
 * or `invoice.payment_failed` (with the attempt and the provider's failure code). A customer without a provider
 * customer or a saved method fails the attempt (`no_payment_method`) like a decline. The idempotency key is the
 * invoice and the attempt, so a step retried after a lost answer gets the same charge, never a second one.
 *
 * A charge the provider answers `pending` (a method that confirms later) fails the attempt (`payment_pending`)
 * and is kept on the invoice: every later attempt asks the provider about it first and charges again only once it
 * has failed, so a customer is never charged twice for one invoice.
 */
export function createProviderChargeBackend(config: ChargeBackendConfig, environment: Tenant['environment']): SubscriptionChargeBackend {
  const providers = createPaymentProviders(config);
  return {
    mode: 'provider',
    async collect(_tx, _tenant, { amount, now }) {
      return { dueAt: now, checkoutSessionId: null, paid: amount === 0, workflowIds: [] };
    },
    async attempt(tx, tenant, invoice, attempt, at) {
      await invoice.reload({ transaction: tx, lock: tx.LOCK.UPDATE });
      if (invoice.status === 'paid') return 'paid';
      // A provider that does not answer (ProviderError 'unavailable') makes the step throw and be retried, with
      // the same call under the same key.
      const provider = () => providers.forEnvironment(environment);
      let charge = invoice.providerChargeId ? await pendingChargeNow(provider(), invoice.providerChargeId) : null;
      let failureCode: string | null = 'no_payment_method';
      if (!charge || charge.status === 'failed') {
        charge = null;
        const customer = invoice.customerId ? await Customer.findByPk(invoice.customerId, { transaction: tx }) : null;
        const paymentMethodId = customer?.metadata[PAYMENT_METHOD_METADATA_KEY];
        if (customer?.providerCustomerId && paymentMethodId) {
          try {
            charge = await provider().chargePaymentMethod({
              referenceId: `${invoice.id}_${attempt}`,
              customerId: customer.providerCustomerId,
              paymentMethodId,
              amount: invoice.amount,
              currency: invoice.currency,
              description: invoice.number,
            });
          } catch (err) {
            if (!(err instanceof ProviderError) || err.kind === 'unavailable') throw err;
            failureCode = err.code ?? 'refused';
          }
        }
      }
      if (charge) failureCode = charge.status === 'succeeded' ? null : charge.status === 'pending' ? PENDING_FAILURE_CODE : (charge.failureCode ?? 'failed');
      const pendingChargeId = charge?.status === 'pending' ? charge.id : null;
      if (pendingChargeId !== invoice.providerChargeId) await invoice.update({ providerChargeId: pendingChargeId }, { transaction: tx });
      if (failureCode === null) {
        await invoice.update({ status: 'paid', paidAt: at }, { transaction: tx });
        await emit(tx, tenant, 'invoice.paid', toInvoiceDto(invoice, config.PUBLIC_BASE_URL));
        return 'paid';
      }
      await emit(tx, tenant, 'invoice.payment_failed', { ...toInvoiceDto(invoice, config.PUBLIC_BASE_URL), attemptCount: attempt, failureCode });
      return 'failed';
    },
  };
}

/** A pending charge as the provider has it now; one it no longer knows (a refusal, such as 404) took no money, so it counts as failed. */
async function pendingChargeNow(provider: PaymentProvider, chargeId: string): Promise<ChargeResult> {
  try {
    return await provider.getCharge(chargeId);
  } catch (err) {
    if (err instanceof ProviderError && err.kind === 'refused') return { id: chargeId, status: 'failed', failureCode: err.code ?? 'refused' };
    throw err;
  }
}

/**
 * The backend that collects a subscription's charges: the one fixed on the subscription at its creation
 * (`backend`), so one started before the payment module was switched on or off keeps being charged where it started.
 */
export function subscriptionChargeBackendFor(config: ChargeBackendConfig, subscription: Pick<Subscription, 'backend' | 'environment'>): SubscriptionChargeBackend {
  return subscription.backend === 'provider' ? createProviderChargeBackend(config, subscription.environment) : createLocalChargeBackend(config);
}
