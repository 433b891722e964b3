import { Transform, type Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Transaction } from 'sequelize';
import { listInvoicePage, streamInvoiceExport, type InvoiceExportRow, type InvoiceFilters } from '../../db/invoices';
import { CheckoutSession, Customer, Invoice, PAYMENT_METHODS, type CheckoutLineItem, type InvoiceStatus } from '../../db/models';
import type { PageRequest } from '../../db/pagination';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { invalidState, notFound, validationError } from '../../lib/errors';
import type { AuthContext } from '../auth-context';
import { insertCheckoutSession, providerInvoicesOf } from '../checkout';
import type { ServiceDeps } from '../service-deps';
import { startRecordedNow } from '../workflow-starts';
import { invoiceDocument } from './document';
import { toInvoiceDto, type InvoiceDto } from './dto';
import { renderInvoiceHtml } from './html';
import { DEFAULT_DUE_DAYS, MAX_DUE_DAYS, type IssueInvoiceBody } from './inputs';
import { issueInvoice } from './issue';
import { renderInvoicePdf } from './pdf';

export interface InvoiceListQuery extends PageRequest, InvoiceFilters {}

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long after its due date a manual invoice's checkout session still takes the payment (docs/decisions/billing.md). */
export const PAYABLE_AFTER_DUE_DAYS = 30;

/** Document 2's export columns, in order. */
export const EXPORT_COLUMNS = ['id', 'number', 'status', 'customerEmail', 'amount', 'currency', 'issuedAt', 'paidAt'] as const;

/** A void closes what is still to be paid; a paid invoice was collected and stays paid (refund its session instead). */
const VOIDABLE: InvoiceStatus[] = ['draft', 'open', 'uncollectible'];

/**
 * The CSV of document 2's columns from the export's row stream: RFC 4180 (CRLF records, fields with a comma,
 * quote or line break quoted, quotes doubled), a header row, and cells a spreadsheet would run as a formula
 * (starting with = + - @ tab or CR, and their full-width forms) prefixed with `'` (OWASP CSV injection).
 */
function csvOf(rows: Readable): Readable {
  const toRecord = new Transform({
    objectMode: true,
    transform(row: InvoiceExportRow, _encoding, callback) {
      callback(null, [row.id, row.number, row.status, row.customerEmail ?? '', Number(row.amount), row.currency, row.issuedAt.toISOString(), row.paidAt?.toISOString() ?? '']);
    },
  });
  // quote_record_delimiter: once a record delimiter is set, csv-stringify would quote only a whole CRLF, not a lone CR or LF.
  const csv = stringify({ header: true, columns: [...EXPORT_COLUMNS], record_delimiter: 'windows', quote_record_delimiter: true, escape_formulas: true });
  // Errors travel downstream so the response is cut, and a consumer that stops reading closes the cursor.
  rows.on('error', (err) => toRecord.destroy(err));
  toRecord.on('error', (err) => csv.destroy(err));
  csv.on('close', () => {
    toRecord.destroy();
    rows.destroy();
  });
  return rows.pipe(toRecord).pipe(csv);
}

/**
 * Invoices (document 2): the read-only routes (list, retrieve, PDF, HTML, CSV export), manual issuance and void in
 * the billing area. No `invoice.*` events: document 2 has them come from the payment provider only.
 */
export function createInvoiceService(deps: Pick<ServiceDeps, 'sequelize' | 'config' | 'logger' | 'starters'>) {
  const { sequelize, config } = deps;
  const base = config.PUBLIC_BASE_URL;
  const providerInvoices = providerInvoicesOf(config);

  async function find(auth: AuthContext, id: string, transaction?: Transaction): Promise<Invoice> {
    const invoice = await Invoice.findOne({ where: { id, ...tenantWhere(auth) }, transaction });
    if (!invoice) throw notFound('Invoice');
    return invoice;
  }

  function dueDate(dueAt: string | undefined, now: Date): Date {
    if (dueAt === undefined) return new Date(now.getTime() + DEFAULT_DUE_DAYS * DAY_MS);
    const at = new Date(dueAt);
    if (at <= now) throw validationError('dueAt: must be in the future', [{ field: 'dueAt', message: 'must be in the future' }]);
    if (at.getTime() - now.getTime() > MAX_DUE_DAYS * DAY_MS) {
      throw validationError(`dueAt: must be at most ${MAX_DUE_DAYS} days from now`, [{ field: 'dueAt', message: `must be at most ${MAX_DUE_DAYS} days from now` }]);
    }
    return at;
  }

  /** The session's lines: the invoice's, then its tax as a line of its own, so the hosted page adds up to the amount. */
  function sessionLines(invoice: Invoice): CheckoutLineItem[] {
    const lines: CheckoutLineItem[] = invoice.lineItems.map((line, index) => ({
      lineKey: String(index + 1),
      productId: null,
      variantId: null,
      name: line.description,
      quantity: line.quantity,
      unitAmount: line.unitAmount,
      amount: line.amount,
    }));
    if (invoice.taxAmount > 0) {
      lines.push({ lineKey: 'tax', productId: null, variantId: null, name: 'Tax', quantity: 1, unitAmount: invoice.taxAmount, amount: invoice.taxAmount });
    }
    return lines;
  }

  return {
    list(auth: AuthContext, query: InvoiceListQuery) {
      const { limit, cursor, ...filters } = query;
      return listInvoicePage(sequelize, tenantWhere(auth), filters, { limit, cursor }, (row) => toInvoiceDto(row, base));
    },

    async retrieve(auth: AuthContext, id: string): Promise<InvoiceDto> {
      return toInvoiceDto(await find(auth, id), base);
    },

    async pdf(auth: AuthContext, id: string): Promise<{ fileName: string; body: Buffer }> {
      const invoice = await find(auth, id);
      return { fileName: `${invoice.number}.pdf`, body: await renderInvoicePdf(await invoiceDocument(invoice, base)) };
    },

    async html(auth: AuthContext, id: string): Promise<string> {
      const invoice = await find(auth, id);
      return renderInvoiceHtml(await invoiceDocument(invoice, base));
    },

    /** The export as CSV text, read from a database cursor only as fast as the caller reads it. */
    async exportCsv(auth: AuthContext, filters: InvoiceFilters): Promise<Readable> {
      return csvOf(await streamInvoiceExport(sequelize, tenantWhere(auth), filters));
    },

    /**
     * A one-off invoice for one of the workspace's customers, issued `open` with the next number. Its payment is
     * collected as every local-mode invoice is (ARCHITECTURE.md): a checkout session (`source: invoice`,
     * `metadata.invoiceId`) whose hosted page is the invoice's `hostedUrl`, written in the same transaction with
     * its workflow's durable start. Nothing to pay (a zero total) is `paid` at once, without a session.
     */
    async issue(auth: AuthContext, input: IssueInvoiceBody): Promise<InvoiceDto> {
      const tenant: Tenant = tenantWhere(auth);
      const now = new Date();
      const dueAt = dueDate(input.dueAt, now);
      const { invoice, workflowId } = await sequelize.transaction(async (tx) => {
        const customer = await Customer.findOne({ where: { id: input.customerId, ...tenant }, transaction: tx });
        if (!customer) throw notFound('Customer');
        const invoice = await issueInvoice(tx, tenant, {
          customerId: customer.id,
          currency: input.currency,
          lineItems: input.lineItems.map((line) => ({ ...line, amount: line.quantity * line.unitAmount })),
          memo: input.memo ?? null,
          issuedAt: now,
          dueAt,
          status: 'open',
          metadata: input.metadata ?? {},
        });
        if (invoice.amount === 0) {
          await invoice.update({ status: 'paid', paidAt: now }, { transaction: tx });
          return { invoice, workflowId: null };
        }
        if (!customer.email) {
          throw validationError('customerId: this customer has no e-mail address to send the payment page to', [{ field: 'customerId', message: 'the customer has no e-mail address' }]);
        }
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
            lineItems: sessionLines(invoice),
            subtotal: invoice.amount,
            expiresAt: new Date(dueAt.getTime() + PAYABLE_AFTER_DUE_DAYS * DAY_MS),
            metadata: { invoiceId: invoice.id },
          },
          now,
          // In provider mode the invoice's page redirects to the provider's, which exists from the start.
          { providerInvoices },
        );
        await invoice.update({ checkoutSessionId: session.id, metadata: { ...invoice.metadata, checkoutSessionId: session.id } }, { transaction: tx });
        return { invoice, workflowId };
      });
      if (workflowId) await startRecordedNow(deps, workflowId);
      return toInvoiceDto(invoice, base);
    },

    /**
     * `(any) → void` for what is still to be paid (draft, open, uncollectible). Its checkout session stops taking
     * the payment in the same transaction: an `open` one is `expired` (its workflow ends at its deadline). A
     * payment the buyer reported (`pending_review`) must be confirmed first, as Stripe refuses to void an invoice
     * with a payment in processing. Locks the session before the invoice, the order settlement takes them in.
     */
    async void(auth: AuthContext, id: string): Promise<InvoiceDto> {
      const tenant = tenantWhere(auth);
      const now = new Date();
      const invoice = await sequelize.transaction(async (tx) => {
        const { checkoutSessionId } = await find(auth, id, tx);
        const session = checkoutSessionId
          ? await CheckoutSession.findOne({ where: { id: checkoutSessionId, ...tenant }, lock: tx.LOCK.UPDATE, transaction: tx })
          : null;
        const invoice = await Invoice.findOne({ where: { id, ...tenant }, lock: tx.LOCK.UPDATE, transaction: tx });
        if (!invoice) throw notFound('Invoice');
        if (!VOIDABLE.includes(invoice.status)) throw invalidState(`This invoice is ${invoice.status}; only a draft, open or uncollectible invoice can be voided`);
        if (session?.status === 'pending_review') {
          throw invalidState('The customer has reported paying this invoice; confirm the payment on its checkout session (the invoice is then paid) before anything else');
        }
        if (session?.status === 'open') await session.update({ status: 'expired', expiredAt: now }, { transaction: tx });
        await invoice.update({ status: 'void', voidedAt: now }, { transaction: tx });
        return invoice;
      });
      return toInvoiceDto(invoice, base);
    },
  };
}

export type InvoiceService = ReturnType<typeof createInvoiceService>;
