import type { Transaction } from 'sequelize';
import { Account, Invoice, type InvoiceLineItem } from '../../db/models';
import { nextInSeries } from '../../db/numbering';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';

/** Tax on a subtotal at `bps` basis points, rounded half up to the smallest unit (docs/decisions/billing.md). */
export function taxOf(subtotal: number, bps: number): number {
  // In BigInt: subtotal × bps passes 2^53 within the documented limits (docs/decisions/money.md).
  return Number((BigInt(subtotal) * BigInt(bps) + 5_000n) / 10_000n);
}

/**
 * `INV-<PREFIX>-<seq>`: the workspace slug's first six letters or digits in capitals (`INV-<seq>` without a
 * slug), and the gap-free sequence padded to six digits (docs/decisions/billing.md).
 */
export function invoiceNumber(slug: string | null, seq: number): string {
  const prefix = (slug ?? '').replace(/[^a-z0-9]/gi, '').slice(0, 6).toUpperCase();
  return `INV-${prefix ? `${prefix}-` : ''}${String(seq).padStart(6, '0')}`;
}

export interface NewInvoice {
  /** The id, when the caller wrote rows naming it first (a subscription charge, a deferred foreign key); else a new one. */
  id?: string;
  customerId: string | null;
  subscriptionId?: string | null;
  currency: string;
  lineItems: InvoiceLineItem[];
  memo?: string | null;
  periodStart?: Date | null;
  periodEnd?: Date | null;
  issuedAt: Date;
  dueAt?: Date | null;
  /** `open` issues it finalised (the usual case); `draft` keeps it editable and unnumbered in effect. */
  status?: 'draft' | 'open';
  /** The checkout session that collects it in local mode, written before the invoice. */
  checkoutSessionId?: string | null;
  metadata?: Record<string, string>;
}

/**
 * Writes an invoice with the next number of the workspace's series and its tax at the workspace's rate, in the
 * caller's transaction. The number is taken last, just before the insert, so the counter row is held briefly.
 */
export async function issueInvoice(tx: Transaction, tenant: Tenant, input: NewInvoice): Promise<Invoice> {
  const account = await Account.findByPk(tenant.accountId, { attributes: ['slug', 'invoiceTaxRateBps'], transaction: tx });
  if (!account) throw notFound('Workspace');
  const subtotal = input.lineItems.reduce((sum, line) => sum + line.amount, 0);
  const taxAmount = taxOf(subtotal, account.invoiceTaxRateBps);
  const seq = await nextInSeries(tx, tenant, 'invoice');
  return Invoice.create(
    {
      id: input.id ?? newId('inv'),
      ...tenantWhere(tenant),
      customerId: input.customerId,
      subscriptionId: input.subscriptionId ?? null,
      number: invoiceNumber(account.slug, seq),
      status: input.status ?? 'open',
      currency: input.currency,
      lineItems: input.lineItems,
      subtotal,
      taxAmount,
      amount: subtotal + taxAmount,
      memo: input.memo ?? null,
      periodStart: input.periodStart ?? null,
      periodEnd: input.periodEnd ?? null,
      issuedAt: input.issuedAt,
      dueAt: input.dueAt ?? null,
      checkoutSessionId: input.checkoutSessionId ?? null,
      metadata: input.metadata ?? {},
    },
    { transaction: tx },
  );
}
