import type { Transaction } from 'sequelize';
import type { CheckoutSession, PaymentMethod } from '../../db/models';

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
  hostedUrl(session: Pick<CheckoutSession, 'id'>): string;
  /** The buyer chose `method` on an `open` session (locked by the caller in `tx`). */
  submitPayment(tx: Transaction, session: CheckoutSession, method: PaymentMethod): Promise<PaymentSubmission>;
}

/** The hosted checkout page this service serves (outside /api) for a session. */
export const hostedCheckoutUrl = (publicBaseUrl: string, sessionId: string) => `${publicBaseUrl}/checkout/${sessionId}`;

/** Local mode (ARCHITECTURE.md): paying records the method and moves the session to `pending_review`. */
export function createLocalPaymentBackend({ publicBaseUrl }: { publicBaseUrl: string }): PaymentBackend {
  return {
    mode: 'local',
    hostedUrl: (session) => hostedCheckoutUrl(publicBaseUrl, session.id),
    async submitPayment(tx, session, method) {
      await session.update({ status: 'pending_review', paymentMethod: method, paidAt: new Date() }, { transaction: tx });
      return { status: 'pending_review', redirectUrl: hostedCheckoutUrl(publicBaseUrl, session.id) };
    },
  };
}
