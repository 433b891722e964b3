import type { Transaction } from 'sequelize';
import { Customer, Invoice, type CheckoutSession } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { clockNow } from '../clock-time';
import { signalSubscription } from '../workflow-starts';

/**
 * Document 2's `open → paid` at settlement, in local mode: the checkout session that collects an invoice completed
 * (the merchant confirmed the transfer), so its invoice is paid, in the completing transaction. Called with the
 * session's row lock held (the lock order a void takes too). An invoice of a customer on a test clock is paid at
 * the clock's time. A subscription's invoice also records, in the same transaction, the durable signal that makes
 * the subscription's workflow settle the charge (`payment_succeeded`, `active` again after dunning), so a
 * payment is never lost between the commit and the workflow (ARCHITECTURE.md, "Local-mode subscription charges").
 * An invoice already paid or voided (its subscription canceled) is left as it is. Answers the invoice it paid, if any.
 */
export async function settleInvoiceOfSession(tx: Transaction, tenant: Tenant, sessionId: string, now: Date): Promise<string | null> {
  const invoice = await Invoice.findOne({ where: { checkoutSessionId: sessionId, ...tenantWhere(tenant) }, lock: tx.LOCK.UPDATE, transaction: tx });
  if (!invoice || (invoice.status !== 'open' && invoice.status !== 'uncollectible')) return null;
  const customer = invoice.customerId ? await Customer.findByPk(invoice.customerId, { attributes: ['testClockId'], transaction: tx }) : null;
  await invoice.update({ status: 'paid', paidAt: await clockNow(tx, customer?.testClockId ?? null, now) }, { transaction: tx });
  if (invoice.subscriptionId) await signalSubscription(tx, tenant, invoice.subscriptionId);
  return invoice.id;
}

/** The checkout area's settler of completed sessions (checkout/transitions.ts): a session opened for an invoice pays it. */
export async function settleInvoiceOfCompletedSession(tx: Transaction, tenant: Tenant, session: CheckoutSession, now: Date): Promise<void> {
  if (session.source === 'invoice') await settleInvoiceOfSession(tx, tenant, session.id, now);
}
