/** The invoices area's entry: what routers, activities, the worker and other areas use of it. */
export { toInvoiceDto } from './dto';
export type { InvoiceDto } from './dto';
export { INVOICE_HTML_CSP } from './html';
export { IssueInvoiceBody } from './inputs';
export { issueInvoice, taxOf } from './issue';
export { createInvoiceService } from './service';
export { settleInvoiceOfCompletedSession } from './settle';
