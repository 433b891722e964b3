import type { Account, CheckoutSession, CheckoutStatus } from '../../db/models';
import type { PaymentBackend } from './payment-backend';
import { lineLabel } from './dto';

/**
 * What a buyer holding a session's id may read (the hosted page's data): the price, the lines, the allowed methods,
 * the merchant's name and branding, and, while a local-mode payment awaits the merchant, where to transfer it.
 * Never the workspace id, the metadata, customer records, the buyer's own details beyond a masked e-mail, the
 * attribution cookies, refunds or the source (docs/decisions/checkout.md, "Sessions API").
 */

/** `buyer@example.com` → `b***@example.com`: enough for the buyer to recognise, nothing for whoever has the link. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return `${[...email.slice(0, at)][0] ?? ''}***${email.slice(at)}`;
}

/**
 * The status a buyer acts on: an `open` session past its `expiresAt` can no longer be paid, so it reads as
 * `expired` even in the moment before the workflow's expiry step writes it.
 */
export function buyerStatus(session: Pick<CheckoutSession, 'status' | 'expiresAt'>, now: Date): CheckoutStatus {
  return session.status === 'open' && session.expiresAt <= now ? 'expired' : session.status;
}

type MerchantFields = Pick<
  Account,
  'name' | 'slug' | 'brandColor' | 'brandLogo' | 'manualBankName' | 'manualAccountNumber' | 'manualAccountHolder' | 'manualPaymentInstructions'
>;

export function toPublicCheckoutSessionDto(session: CheckoutSession, account: MerchantFields, backend: Pick<PaymentBackend, 'mode'>, now = new Date()) {
  const status = buyerStatus(session, now);
  return {
    id: session.id,
    environment: session.environment,
    status,
    amount: session.amount,
    currency: session.currency,
    description: session.description,
    lineItems: session.lineItems.map((line) => ({ name: lineLabel(line), quantity: line.quantity, unitAmount: line.unitAmount, amount: line.amount })),
    subtotal: session.subtotal,
    discountCode: session.discountCode,
    discountAmount: session.discountAmount,
    customerEmailMasked: maskEmail(session.customerEmail),
    paymentMethods: session.paymentMethods,
    paymentMethod: session.paymentMethod,
    expiresAt: session.expiresAt.toISOString(),
    completedAt: session.completedAt?.toISOString() ?? null,
    successUrl: session.successUrl,
    cancelUrl: session.cancelUrl,
    merchant: { name: account.name, slug: account.slug, brandColor: account.brandColor, brandLogo: account.brandLogo },
    // Only the buyer who has paid by transfer and waits for the merchant needs the merchant's bank details.
    manualPayment:
      status === 'pending_review' && backend.mode === 'local'
        ? {
            bankName: account.manualBankName,
            accountNumber: account.manualAccountNumber,
            accountHolder: account.manualAccountHolder,
            instructions: account.manualPaymentInstructions,
          }
        : null,
  };
}

export type PublicCheckoutSessionDto = ReturnType<typeof toPublicCheckoutSessionDto>;
