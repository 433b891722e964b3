import type { Transaction } from 'sequelize';
import { Customer, Invoice } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { subscriptionNow, signalSubscription } from '../subscriptions/billing';

/**
 * The settlement of an invoice collected through a checkout session (ARCHITECTURE.md, "Local-mode subscription
 * charges"): a completed session whose `source` is `invoice` pays the invoice that names it. Called by the
 * checkout fulfilment, in its step's transaction (the session is locked by then: session before invoice, the
 * order every writer of both takes). An `open` invoice becomes `paid`, at its customer's test-clock time when it
 * has one, and the subscription's workflow is signalled durably to settle the charge (`payment_succeeded`, and
 * `active` again after dunning). An invoice already paid, or voided when its subscription was canceled, is left
 * as it is (the merchant may refund the session). Answers the invoice, or null when no invoice names the session.
 */
export async function settleInvoiceForSession(tx: Transaction, tenant: Tenant, sessionId: string): Promise<Invoice | null> {
  const invoice = await Invoice.findOne({ where: { checkoutSessionId: sessionId, ...tenantWhere(tenant) }, lock: tx.LOCK.UPDATE, transaction: tx });
  if (!invoice || invoice.status !== 'open') return invoice;
  const customer = invoice.customerId ? await Customer.findByPk(invoice.customerId, { attributes: ['testClockId'], transaction: tx }) : null;
  const paidAt = await subscriptionNow(tx, customer?.testClockId ?? null, new Date());
  await invoice.update({ status: 'paid', paidAt }, { transaction: tx });
  if (invoice.subscriptionId) await signalSubscription(tx, tenant, invoice.subscriptionId);
  return invoice;
}
