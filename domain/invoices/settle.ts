import type { Transaction } from 'sequelize';
import { Invoice } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';

/**
 * Document 2's `open → paid` at settlement, in local mode: the checkout session that collects an invoice completed
 * (the merchant confirmed the transfer), so its invoice is paid, in the completing transaction. Called with the
 * session's row lock held (the lock order a void takes too). Answers the invoice it paid, if any.
 */
export async function settleInvoiceOfSession(tx: Transaction, tenant: Tenant, sessionId: string, now: Date): Promise<string | null> {
  const [, rows] = await Invoice.update(
    { status: 'paid', paidAt: now },
    { where: { checkoutSessionId: sessionId, ...tenantWhere(tenant), status: ['open', 'uncollectible'] }, returning: ['id'], transaction: tx },
  );
  return rows[0]?.id ?? null;
}
