import type { Invoice } from '../../db/models';
import { hostedCheckoutUrl } from '../checkout';

/** Where an invoice's documents are served: the API's own routes under `PUBLIC_BASE_URL/api`. */
export const invoicePdfUrl = (publicBaseUrl: string, invoiceId: string) => `${publicBaseUrl}/api/v1/payment/invoices/${invoiceId}/pdf`;

/**
 * Document 2's Invoice resource. `hostedUrl` is the hosted checkout page of the session that collects it (local
 * mode), null when nothing is to be paid through this service; `pdfUrl` needs the same secret key as the API.
 */
export function toInvoiceDto(row: Invoice, publicBaseUrl: string) {
  return {
    id: row.id,
    accountId: row.accountId,
    customerId: row.customerId,
    subscriptionId: row.subscriptionId,
    number: row.number,
    status: row.status,
    amount: row.amount,
    subtotal: row.subtotal,
    taxAmount: row.taxAmount,
    currency: row.currency,
    lineItems: row.lineItems.map(({ description, quantity, unitAmount, amount }) => ({ description, quantity, unitAmount, amount })),
    memo: row.memo,
    periodStart: row.periodStart?.toISOString() ?? null,
    periodEnd: row.periodEnd?.toISOString() ?? null,
    issuedAt: row.issuedAt.toISOString(),
    dueAt: row.dueAt?.toISOString() ?? null,
    paidAt: row.paidAt?.toISOString() ?? null,
    voidedAt: row.voidedAt?.toISOString() ?? null,
    hostedUrl: row.checkoutSessionId ? hostedCheckoutUrl(publicBaseUrl, row.checkoutSessionId) : null,
    pdfUrl: invoicePdfUrl(publicBaseUrl, row.id),
    metadata: row.metadata,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type InvoiceDto = ReturnType<typeof toInvoiceDto>;
