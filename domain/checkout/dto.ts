import type { CheckoutLineItem, CheckoutSession } from '../../db/models';
import type { PaymentBackend } from './payment-backend';

/** How a line is named to the buyer (hosted page, receipt, description): the product, then the variant in brackets. */
export const lineLabel = (line: Pick<CheckoutLineItem, 'name' | 'variantName'>): string => (line.variantName ? `${line.name} (${line.variantName})` : line.name);

/** The merchant's view of a session (document 2's Checkout session resource, plus its lines and refunds). */
export function toCheckoutSessionDto(session: CheckoutSession, backend: Pick<PaymentBackend, 'hostedUrl'>) {
  return {
    id: session.id,
    accountId: session.accountId,
    status: session.status,
    amount: session.amount,
    currency: session.currency,
    description: session.description,
    customerEmail: session.customerEmail,
    customerId: session.customerId,
    paymentMethods: session.paymentMethods,
    paymentMethod: session.paymentMethod,
    hostedUrl: backend.hostedUrl(session),
    successUrl: session.successUrl,
    cancelUrl: session.cancelUrl,
    // Sessions created before variants were sold have no variantName.
    lineItems: session.lineItems.map((line) => ({ ...line, variantName: line.variantName ?? null })),
    subtotal: session.subtotal,
    discountCode: session.discountCode,
    discountAmount: session.discountAmount,
    discountApplied: session.discountApplied,
    amountRefunded: session.refundedAmount,
    expiresAt: session.expiresAt.toISOString(),
    completedAt: session.completedAt?.toISOString() ?? null,
    metadata: session.metadata,
    createdAt: session.createdAt.toISOString(),
  };
}

export type CheckoutSessionDto = ReturnType<typeof toCheckoutSessionDto>;
