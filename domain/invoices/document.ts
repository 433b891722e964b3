import type { Transaction } from 'sequelize';
import { Account, Customer, type Invoice, type InvoiceLineItem, type InvoiceStatus } from '../../db/models';
import { tenantWhere } from '../../db/tenancy';
import { formatMoney } from '../../lib/money';
import { hostedCheckoutUrl } from '../checkout';

/**
 * What an invoice's PDF and HTML show, the same for both: the merchant, the customer, the number, the dates, the
 * lines and the totals, with every amount already formatted. Values are as stored; each renderer escapes them
 * for its own output.
 */
export interface InvoiceDocument {
  number: string;
  status: InvoiceStatus;
  /** Upper-case label for the status, shown beside the number. */
  statusLabel: string;
  testMode: boolean;
  merchantName: string;
  customer: { name: string | null; email: string | null } | null;
  dates: Array<{ label: string; value: string }>;
  lines: Array<{ description: string; quantity: number; unitAmount: string; amount: string }>;
  subtotal: string;
  tax: string;
  total: string;
  currency: string;
  memo: string | null;
  /** Where the customer pays: only while the invoice is payable. */
  payUrl: string | null;
}

const DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
/** Dates without a time of day, in UTC, the zone every timestamp of the API is in. */
export const formatInvoiceDate = (value: Date) => DAY.format(value);

const STATUS_LABELS: Record<InvoiceStatus, string> = { draft: 'DRAFT', open: 'DUE', paid: 'PAID', uncollectible: 'UNCOLLECTIBLE', void: 'VOID' };

/** The document of an invoice the caller has read within its tenant. */
export async function invoiceDocument(invoice: Invoice, publicBaseUrl: string, transaction?: Transaction): Promise<InvoiceDocument> {
  const tenant = tenantWhere(invoice);
  const [account, customer] = await Promise.all([
    Account.findByPk(invoice.accountId, { attributes: ['name'], transaction }),
    invoice.customerId ? Customer.findOne({ where: { id: invoice.customerId, ...tenant }, attributes: ['name', 'email'], transaction }) : null,
  ]);
  const money = (amount: number) => formatMoney(amount, invoice.currency);
  const dated = (label: string, value: Date | null) => (value ? [{ label, value: formatInvoiceDate(value) }] : []);
  const period = invoice.periodStart && invoice.periodEnd ? [{ label: 'Period', value: `${formatInvoiceDate(invoice.periodStart)} – ${formatInvoiceDate(invoice.periodEnd)}` }] : [];
  return {
    number: invoice.number,
    status: invoice.status,
    statusLabel: STATUS_LABELS[invoice.status as InvoiceStatus],
    testMode: invoice.environment === 'test',
    merchantName: account?.name ?? '',
    customer: customer ? { name: customer.name, email: customer.email } : null,
    dates: [...dated('Issued', invoice.issuedAt), ...dated('Due', invoice.dueAt), ...period, ...dated('Paid', invoice.paidAt), ...dated('Voided', invoice.voidedAt)],
    lines: invoice.lineItems.map((line: InvoiceLineItem) => ({ description: line.description, quantity: line.quantity, unitAmount: money(line.unitAmount), amount: money(line.amount) })),
    subtotal: money(invoice.subtotal),
    tax: money(invoice.taxAmount),
    total: money(invoice.amount),
    currency: invoice.currency,
    memo: invoice.memo,
    payUrl: invoice.checkoutSessionId && (invoice.status === 'open' || invoice.status === 'uncollectible') ? hostedCheckoutUrl(publicBaseUrl, invoice.checkoutSessionId) : null,
  };
}
