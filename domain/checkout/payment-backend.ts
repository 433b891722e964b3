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
 * Provider mode (payment module): paying creates the provider's invoice for the session (once; a second pay sends
 * the buyer to the same invoice) and answers its hosted page; the session stays `open` until the provider's
 * callback completes it (docs/decisions/payment-module.md). Until then the session's page is ours.
 */
export function createProviderPaymentBackend({ publicBaseUrl, provider }: { publicBaseUrl: string; provider: PaymentProvider }): PaymentBackend {
  return {
    mode: 'provider',
    hostedUrl: (session) => session.providerInvoiceUrl ?? hostedCheckoutUrl(publicBaseUrl, session.id),
    async submitPayment(tx, session, _method) {
      if (session.providerInvoiceId && session.providerInvoiceUrl) return { status: 'open', redirectUrl: session.providerInvoiceUrl };
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
          successUrl: session.successUrl,
          failureUrl: session.cancelUrl,
        });
      } catch (err) {
        if (err instanceof ProviderError) throw new AppError('PARTNER_UNAVAILABLE', `The payment provider did not create the invoice: ${err.message}`);
        throw err;
      }
      await session.update({ providerInvoiceId: invoice.id, providerInvoiceUrl: invoice.url }, { transaction: tx });
      return { status: 'open', redirectUrl: invoice.url };
    },
  };
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
