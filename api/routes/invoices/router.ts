import { Readable } from 'node:stream';
import { z } from 'zod';
import { INVOICE_HTML_CSP } from '../../../domain/invoices';
import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import { ExportInvoicesQuery, Invoice, InvoiceIdParams, IssueInvoiceBody, ListInvoicesQuery } from './schemas';

/** Document 2's read-only invoice routes. `export.csv` is declared before `/:id`, which would otherwise take it. */
export function invoicesRouter(deps: RouteDeps) {
  const { invoices } = deps.services;
  return new ApiRouter('/v1/payment/invoices', 'Invoices', deps)
    .add({
      method: 'get',
      path: '/',
      summary: 'List invoices, newest first (`status`, `customerId`, `subscriptionId`, `createdAfter`, `createdBefore`)',
      access: 'secret',
      query: ListInvoicesQuery,
      response: z.array(Invoice),
      paginated: true,
      handler: async ({ auth, query }) => invoices.list(auth, query),
    })
    .add({
      method: 'get',
      path: '/export.csv',
      summary: 'Every matching invoice as CSV (the list’s filters, no pagination), streamed: id, number, status, customerEmail, amount, currency, issuedAt, paidAt',
      access: 'secret',
      query: ExportInvoicesQuery,
      produces: 'text/csv',
      handler: async ({ auth, query }) => ({
        file: { body: await invoices.exportCsv(auth, query), fileName: 'invoices.csv', mimeType: 'text/csv; charset=utf-8; header=present' },
      }),
    })
    .add({
      method: 'get',
      path: '/:id',
      summary: 'Retrieve an invoice with its line items, totals and tax',
      access: 'secret',
      params: InvoiceIdParams,
      response: Invoice,
      handler: async ({ auth, params }) => ({ data: await invoices.retrieve(auth, params.id) }),
    })
    .add({
      method: 'get',
      path: '/:id/pdf',
      summary: 'The invoice as a PDF (downloaded as `<number>.pdf`)',
      access: 'secret',
      params: InvoiceIdParams,
      produces: 'application/pdf',
      handler: async ({ auth, params }) => {
        const { fileName, body } = await invoices.pdf(auth, params.id);
        return { file: { body: Readable.from([body]), size: body.length, fileName, mimeType: 'application/pdf' } };
      },
    })
    .add({
      method: 'get',
      path: '/:id/html',
      summary: 'The invoice as a standalone HTML page (no script, strict CSP)',
      access: 'secret',
      params: InvoiceIdParams,
      produces: 'text/html',
      handler: async ({ auth, params }) => ({ raw: await invoices.html(auth, params.id), headers: { 'Content-Security-Policy': INVOICE_HTML_CSP } }),
    }).router;
}

/**
 * Invoices in the billing area (document 2: manual issuance "in the billing area"): issue one by hand, and void
 * one that is still to be paid. Kept apart from `/v1/payment/invoices`, which document 2 makes read-only.
 */
export function billingInvoicesRouter(deps: RouteDeps) {
  const { invoices } = deps.services;
  return new ApiRouter('/v1/billing/invoices', 'Invoices', deps)
    .add({
      method: 'post',
      path: '/',
      summary: 'Issue a one-off invoice to a customer: `open`, numbered, taxed at the workspace rate, payable on its `hostedUrl`',
      access: 'secret',
      body: IssueInvoiceBody,
      response: Invoice,
      status: 201,
      errors: ['RESOURCE_NOT_FOUND', 'PARTNER_UNAVAILABLE'],
      handler: async ({ auth, body }) => ({ data: await invoices.issue(auth, body) }),
    })
    .add({
      method: 'post',
      path: '/:id/void',
      summary: 'Void a draft, open or uncollectible invoice; its payment page stops taking payment (409 INVALID_STATE when paid, void, or a payment awaits confirmation)',
      access: 'secret',
      params: InvoiceIdParams,
      response: Invoice,
      errors: ['INVALID_STATE'],
      handler: async ({ auth, params }) => ({ data: await invoices.void(auth, params.id) }),
    }).router;
}
