import type { Transaction } from 'sequelize';
import type { CheckoutSession, PaymentMethod } from '../../db/models';
import { AppError } from '../../lib/errors';
import { ProviderError, type PaymentProvider } from '../../lib/payment-provider';

/** What a backend answers when the buyer pays: the session's new status and where the buyer goes next. */
export interface PaymentSubmission {
  status: 'pending_review' | 'open';
  /** The page the buyer continues on: the hosted page in local mode, the provider's payment page otherwise. */
  redirectUrl: string;
}

/**
 * The one seam between checkout and whoever takes the money. Local mode (no payment module) records the method
 * and waits for the merchant to confirm a manual transfer; the payment module adds a provider backend behind
 * the same interface, so no route changes (docs/decisions/checkout.md).
 */
export interface PaymentBackend {
  readonly mode: 'local' | 'provider';
  /** Where the buyer is sent to pay for a new session. */
  hostedUrl(session: Pick<CheckoutSession, 'id' | 'providerInvoiceUrl'>): string;
  /** The buyer chose `method` on an `open` session (locked by the caller in `tx`). */
  submitPayment(tx: Transaction, session: CheckoutSession, method: PaymentMethod): Promise<PaymentSubmission>;
}

/**
 * Provider mode (payment module): the session's provider invoice is created with the session by the creators that
 * answer a `hostedUrl` (`insertCheckoutSession` with `ProviderInvoices`), else by the buyer's first pay; paying
 * answers the invoice's hosted page (a second pay, the same invoice). The session stays `open` until the
 * provider's callback completes it (docs/decisions/payment-module.md).
 */
export function createProviderPaymentBackend({ publicBaseUrl, provider }: { publicBaseUrl: string; provider: PaymentProvider }): PaymentBackend {
  return {
    mode: 'provider',
    hostedUrl: (session) => session.providerInvoiceUrl ?? hostedCheckoutUrl(publicBaseUrl, session.id),
    async submitPayment(tx, session, _method) {
      return { status: 'open', redirectUrl: await openProviderInvoice(tx, provider, publicBaseUrl, session) };
    },
  };
}

/**
 * The session's provider invoice (created once: a session that has one answers its page), for all of its methods,
 * its amount, currency and description, expiring at the session's `expiresAt`. The provider sends the buyer back
 * to the merchant's success and cancel URLs, or to our hosted page, which shows the receipt once the callback has
 * completed the session. Stored on the row the caller holds in `tx`; answers the invoice's page.
 */
export async function openProviderInvoice(tx: Transaction, provider: PaymentProvider, publicBaseUrl: string, session: CheckoutSession): Promise<string> {
  if (session.providerInvoiceId && session.providerInvoiceUrl) return session.providerInvoiceUrl;
  const ours = hostedCheckoutUrl(publicBaseUrl, session.id);
  let invoice;
  try {
    invoice = await provider.createInvoice({
      externalId: session.id,
      amount: session.amount,
      currency: session.currency,
      description: session.description,
      payerEmail: session.customerEmail,
      paymentMethods: session.paymentMethods,
      expiresAt: session.expiresAt,
      successUrl: session.successUrl ?? ours,
      failureUrl: session.cancelUrl ?? ours,
    });
  } catch (err) {
    if (err instanceof ProviderError) throw new AppError('PARTNER_UNAVAILABLE', `The payment provider did not create the invoice: ${err.message}`);
    throw err;
  }
  await session.update({ providerInvoiceId: invoice.id, providerInvoiceUrl: invoice.url }, { transaction: tx });
  return invoice.url;
}

/** The hosted checkout page this service serves (outside /api) for a session. */
export const hostedCheckoutUrl = (publicBaseUrl: string, sessionId: string) => `${publicBaseUrl}/checkout/${sessionId}`;

/** Local mode (ARCHITECTURE.md): paying records the method and moves the session to `pending_review`. */
export function createLocalPaymentBackend({ publicBaseUrl }: { publicBaseUrl: string }): PaymentBackend {
  return {
    mode: 'local',
    hostedUrl: (session) => session.providerInvoiceUrl ?? hostedCheckoutUrl(publicBaseUrl, session.id),
    async submitPayment(tx, session, method) {
      await session.update({ status: 'pending_review', paymentMethod: method, paidAt: new Date() }, { transaction: tx });
      return { status: 'pending_review', redirectUrl: hostedCheckoutUrl(publicBaseUrl, session.id) };
    },
  };
}
