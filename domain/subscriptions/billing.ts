import { Op, type Transaction } from 'sequelize';
import { Account, BillingPlan, CheckoutSession, Customer, Invoice, Subscription, SubscriptionCharge, type ChargeReason, type InvoiceLineItem } from '../../db/models';
import { emit } from '../../db/outbox';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import type { Config } from '../../lib/config';
import { newId } from '../../lib/ids';
import { issueInvoice, taxOf, toInvoiceDto } from '../invoices';
import { subscriptionChargeBackendFor, type ChargeBackendConfig } from './charge-backend';
import { toSubscriptionDto } from './dto';
import { dayOf } from './periods';

/**
 * The writes a subscription's workflow steps and its requests share: its time, the invoices of its charges, its
 * cancellation and the signal that tells its workflow to read the row again. Each runs in the caller's
 * transaction, under the subscription's row lock.
 */

export type ChargeConfig = ChargeBackendConfig;

/** One line of a period's invoice: the plan's price for [start, end). */
export function periodLine(plan: Pick<BillingPlan, 'name' | 'amount'>, start: Date, end: Date): InvoiceLineItem {
  return { description: `${plan.name} (${dayOf(start)} to ${dayOf(end)})`, quantity: 1, unitAmount: plan.amount, amount: plan.amount };
}

/** An invoice of a subscription being issued: everything is written but the numbered invoice, which `issue` writes. */
export interface PendingSubscriptionInvoice {
  invoiceId: string;
  /** Workflows its collection recorded for durable start. */
  workflowIds: string[];
  /**
   * Writes the invoice with the workspace's next number. Call it last in the transaction: the number's counter row
   * is held from here to the commit, and every invoice of the workspace queues on it.
   */
  issue(): Promise<Invoice>;
}

/**
 * Prepares an invoice of the subscription, `open` at `issuedAt`, and starts collecting it through the workspace's
 * charge backend (in local mode its checkout session); the charge row tells the workflow when to judge it. Credit
 * lines that would take the total below zero are balanced by a "carried" line and billed again with the next
 * invoice (docs/decisions/billing.md). The rows naming the invoice come first (their foreign keys are deferred)
 * and the numbered invoice last, through `issue`.
 */
export async function prepareSubscriptionInvoice(
  tx: Transaction,
  tenant: Tenant,
  config: ChargeConfig,
  subscription: Subscription,
  { reason, lines, period, issuedAt, description }: { reason: ChargeReason; lines: InvoiceLineItem[]; period: { start: Date; end: Date }; issuedAt: Date; description: string },
): Promise<PendingSubscriptionInvoice> {
  const customer = await Customer.findOne({ where: { id: subscription.customerId, ...tenantWhere(tenant) }, transaction: tx });
  const plan = await BillingPlan.findOne({ where: { id: subscription.planId, ...tenantWhere(tenant) }, transaction: tx });
  const account = await Account.findByPk(tenant.accountId, { attributes: ['invoiceTaxRateBps'], transaction: tx });
  if (!customer || !plan || !account) throw new Error(`subscription ${subscription.id} lost its customer, plan or workspace`);
  const total = lines.reduce((sum, line) => sum + line.amount, 0);
  const carried = total < 0 ? -total : 0;
  const lineItems = carried > 0 ? [...lines, { description: 'Credit carried to the next invoice', quantity: 1, unitAmount: carried, amount: carried }] : lines;
  const subtotal = total + carried;
  const amount = subtotal + taxOf(subtotal, account.invoiceTaxRateBps);
  const invoiceId = newId('inv');
  const backend = subscriptionChargeBackendFor(config, subscription);
  const collection = await backend.collect(tx, tenant, {
    invoiceId,
    subscriptionId: subscription.id,
    amount,
    currency: plan.currency,
    description,
    customer,
    now: issuedAt,
  });
  await SubscriptionCharge.create({ invoiceId, ...tenantWhere(tenant), subscriptionId: subscription.id, reason, dueAt: collection.dueAt }, { transaction: tx });
  subscription.set({
    latestInvoiceId: invoiceId,
    pendingInvoiceItems: carried > 0 ? [{ description: `Credit carried from the invoice of ${dayOf(period.start)}`, quantity: 1, unitAmount: -carried, amount: -carried }] : [],
  });
  return {
    invoiceId,
    workflowIds: collection.workflowIds,
    async issue() {
      const invoice = await issueInvoice(tx, tenant, {
        id: invoiceId,
        customerId: customer.id,
        subscriptionId: subscription.id,
        currency: plan.currency,
        lineItems,
        periodStart: period.start,
        periodEnd: period.end,
        issuedAt,
        dueAt: collection.dueAt,
        status: 'open',
        checkoutSessionId: collection.checkoutSessionId,
        metadata: collection.checkoutSessionId ? { checkoutSessionId: collection.checkoutSessionId } : {},
      });
      // The session was priced from this transaction's read of the tax rate; the invoice must say the same.
      if (invoice.amount !== amount) throw new Error(`invoice ${invoiceId}: the tax rate changed while it was issued; retry`);
      if (collection.paid) await invoice.update({ status: 'paid', paidAt: issuedAt }, { transaction: tx });
      // Provider mode only (document 2): the invoice's events come from the provider's side of billing.
      if (backend.mode === 'provider') {
        const dto = toInvoiceDto(invoice, config.PUBLIC_BASE_URL);
        await emit(tx, tenant, 'invoice.created', dto);
        await emit(tx, tenant, 'invoice.finalized', dto);
        if (collection.paid) await emit(tx, tenant, 'invoice.paid', dto);
      }
      return invoice;
    },
  };
}

/**
 * Cancels now (`at`, in the subscription's time): `canceled`, every charge still being collected voided with its
 * invoice, and a checkout session still `open` for one expired so it can no longer be paid (one the buyer already
 * paid, awaiting the merchant's confirm, is left to the merchant). Emits `subscription.canceled`, and `invoice.void`
 * for each invoice voided in provider mode. No refund. Locks sessions before invoices, the order in which a
 * settling payment takes them.
 */
export async function cancelSubscription(tx: Transaction, tenant: Tenant, subscription: Subscription, at: Date, config: Pick<Config, 'PUBLIC_BASE_URL'>): Promise<void> {
  const open = await SubscriptionCharge.findAll({ where: { subscriptionId: subscription.id, state: { [Op.in]: ['pending', 'failed'] } }, transaction: tx });
  for (const charge of open) {
    const { checkoutSessionId } = (await Invoice.findByPk(charge.invoiceId, { attributes: ['checkoutSessionId'], transaction: tx }))!;
    if (checkoutSessionId) {
      const session = await CheckoutSession.findByPk(checkoutSessionId, { lock: tx.LOCK.UPDATE, transaction: tx });
      if (session?.status === 'open') await session.update({ status: 'expired', expiredAt: new Date() }, { transaction: tx });
    }
    const invoice = (await Invoice.findByPk(charge.invoiceId, { lock: tx.LOCK.UPDATE, transaction: tx }))!;
    if (invoice.status === 'open' || invoice.status === 'draft') {
      await invoice.update({ status: 'void', voidedAt: at }, { transaction: tx });
      if (subscription.backend === 'provider') await emit(tx, tenant, 'invoice.void', toInvoiceDto(invoice, config.PUBLIC_BASE_URL));
    }
    await charge.update({ state: invoice.status === 'paid' ? 'paid' : 'void', resolvedAt: at }, { transaction: tx });
  }
  await subscription.update({ status: 'canceled', canceledAt: at, pausedAt: null, nextRetryAt: null }, { transaction: tx });
  await emit(tx, tenant, 'subscription.canceled', toSubscriptionDto(subscription));
}
