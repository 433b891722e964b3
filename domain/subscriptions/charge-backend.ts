import type { Transaction } from 'sequelize';
import { PAYMENT_METHODS, type Account, type Customer, type Invoice } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import type { Config } from '../../lib/config';
import { insertCheckoutSession, MAX_CHECKOUT_LIFETIME_MS } from '../checkout/create';

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
 * The backend of a workspace's subscriptions. Every workspace collects locally until the payment module's issue
 * adds the provider backend (charging at once) for workspaces with `paymentEnabled`: one branch here.
 */
export function subscriptionChargeBackendFor(config: Pick<Config, 'LOCAL_INVOICE_DUE' | 'SUBSCRIPTION_RETRY_SCHEDULE'>, _account: Pick<Account, 'paymentEnabled'>): SubscriptionChargeBackend {
  return createLocalChargeBackend(config);
}
