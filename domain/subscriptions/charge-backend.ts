import type { Transaction } from 'sequelize';
import { PAYMENT_METHODS, type Account, type Customer, type Invoice } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import type { Config } from '../../lib/config';
import { insertCheckoutSession, MAX_CHECKOUT_LIFETIME_MS } from '../checkout/create';

/** One charge of a subscription: its newly issued `open` invoice and whom it bills. */
export interface ChargeRequest {
  invoice: Invoice;
  customer: Pick<Customer, 'id' | 'email' | 'name'>;
  /** The subscription's time (its test clock's, when it has one): the invoice's due date counts from it. */
  now: Date;
}

/**
 * How a subscription's charges are collected, chosen per workspace like the checkout payment backend. The
 * subscription workflow only asks when a charge is due and, at that moment and at each dunning retry, whether
 * it was paid; it never knows which backend answers.
 */
export interface SubscriptionChargeBackend {
  readonly mode: 'local' | 'provider';
  /**
   * Starts collecting the invoice (in the issuing transaction); answers when the charge is judged, and the
   * workflows it recorded for durable start (a request starts them after its commit; the start relay would).
   */
  collect(tx: Transaction, tenant: Tenant, request: ChargeRequest): Promise<{ dueAt: Date; workflowIds: string[] }>;
  /**
   * The charge is due (`attempt: 1`) or retried (`2`…): local mode checks the invoice, which the buyer pays on its
   * hosted page (`paid` is the invoice's own status); a provider backend charges the saved method here.
   */
  attempt(tx: Transaction, tenant: Tenant, invoice: Invoice, attempt: number): Promise<'paid' | 'failed'>;
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
    async collect(tx, tenant, { invoice, customer, now }) {
      const dueAt = new Date(now.getTime() + config.LOCAL_INVOICE_DUE);
      if (invoice.amount === 0) {
        await invoice.update({ status: 'paid', paidAt: now, dueAt: now }, { transaction: tx });
        return { dueAt: now, workflowIds: [] };
      }
      if (!customer.email) throw new Error(`customer ${customer.id} has no e-mail: a local-mode invoice cannot be collected`);
      // The session lives in real time (its own workflow expires it), whatever clock the subscription runs on.
      const realNow = new Date();
      const { session, workflowId } = await insertCheckoutSession(
        tx,
        tenant,
        {
          source: 'invoice',
          amount: invoice.amount,
          currency: invoice.currency,
          description: `Invoice ${invoice.number}`,
          customerEmail: customer.email,
          customerName: customer.name,
          customerId: customer.id,
          paymentMethods: [...PAYMENT_METHODS],
          lineItems: [],
          subtotal: invoice.amount,
          expiresAt: new Date(realNow.getTime() + payableFor),
          metadata: { invoiceId: invoice.id, ...(invoice.subscriptionId ? { subscriptionId: invoice.subscriptionId } : {}) },
        },
        realNow,
      );
      await invoice.update({ checkoutSessionId: session.id, dueAt, metadata: { ...invoice.metadata, checkoutSessionId: session.id } }, { transaction: tx });
      return { dueAt, workflowIds: [workflowId] };
    },
    async attempt(tx, _tenant, invoice) {
      await invoice.reload({ transaction: tx, lock: tx.LOCK.UPDATE });
      return invoice.status === 'paid' ? 'paid' : 'failed';
    },
  };
}

/**
 * The backend of a workspace's subscriptions. Every workspace collects locally until the payment module's issue
 * adds the provider backend (charging at once) for workspaces with `paymentEnabled`: one branch here.
 */
export function subscriptionChargeBackendFor(config: Pick<Config, 'LOCAL_INVOICE_DUE' | 'SUBSCRIPTION_RETRY_SCHEDULE'>, _account: Pick<Account, 'paymentEnabled'>): SubscriptionChargeBackend {
  return createLocalChargeBackend(config);
}
