import type { Sequelize, Transaction } from 'sequelize';
import { claimManualOrderStep, recordManualOrderStepResult } from '../../db/manual-order-steps';
import { ManualOrder } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { requireEncryptionKey, type Config } from '../../lib/config';
import type { CryptoBox } from '../../lib/crypto-box';
import { deliverPurchasedLine, purchaseReceipt, type StepOutcome } from '../checkout';
import { createDownloadLinks, type DownloadLinks } from '../deliveries';
import type { EmailDataInput } from '../../lib/email';
import { createEmailQueue } from '../email';
import { lineKeyOfStep, MANUAL_ORDER_STEPS, planManualOrderFulfillment } from './fulfillment-plan';

/** The receipt of a confirmed manual order: its lines, total, and the deliveries' links and keys. */
export function manualOrderReceipt(tx: Transaction, tenant: Tenant, order: ManualOrder, links: DownloadLinks): Promise<EmailDataInput<'checkout_receipt'>> {
  return purchaseReceipt(
    tx,
    tenant,
    {
      deliveries: { manualOrderId: order.id },
      orderNumber: order.orderNumber,
      customerName: order.customerName,
      currency: order.currency,
      total: order.amount,
      lines: order.lines.map((line) => ({ lineKey: line.lineKey, name: line.productName, quantity: line.quantity, amount: line.amount })),
      successUrl: null,
    },
    links,
  );
}

/**
 * The fulfillment of a confirmed manual order, the paid checkout's own (one delivery per line with its licence
 * and product.purchased, then the receipt): the steps of `planManualOrderFulfillment`, each applied once in
 * a transaction that first claims its row in `manual_order_fulfillment_steps` (a step whose row exists did its
 * work already), so a retried activity, a replayed workflow or a second worker apply each effect once.
 */
export function createManualOrderFulfillment({ sequelize, config, box }: { sequelize: Sequelize; config: Config; box: CryptoBox }) {
  const emails = createEmailQueue({ box, config });
  const links = createDownloadLinks({ secret: requireEncryptionKey(config), publicBaseUrl: config.PUBLIC_BASE_URL });

  async function confirmedOrder(tenant: Tenant, orderId: string, tx?: Transaction): Promise<ManualOrder> {
    const order = await ManualOrder.findOne({ where: { id: orderId, ...tenantWhere(tenant) }, ...(tx ? { lock: tx.LOCK.UPDATE, transaction: tx } : {}) });
    if (!order) throw new Error(`manual order ${orderId} does not exist in ${tenant.accountId}/${tenant.environment}`);
    // Started only by the confirming transaction; anything else is a bug to see and fix.
    if (order.paymentStatus !== 'payment_confirmed') throw new Error(`manual order ${orderId} is ${order.paymentStatus}; only a confirmed order is fulfilled`);
    return order;
  }

  async function apply(tx: Transaction, tenant: Tenant, order: ManualOrder, step: string): Promise<Record<string, unknown>> {
    const lineKey = lineKeyOfStep(step);
    if (lineKey !== undefined) {
      const line = order.lines.find((item) => item.lineKey === lineKey);
      if (!line) throw new Error(`manual order ${order.id} has no line "${lineKey}"`);
      return {
        ...(await deliverPurchasedLine(tx, tenant, {
          checkoutSessionId: null,
          manualOrderId: order.id,
          lineKey,
          productId: line.productId,
          variantId: line.variantId,
          quantity: line.quantity,
          customerId: null,
          customerEmail: order.customerEmail,
          metadata: order.metadata,
        })),
      };
    }
    if (step === MANUAL_ORDER_STEPS.receipt) {
      const { workflowId } = await emails.queue(tx, tenant, {
        kind: 'checkout_receipt',
        businessKey: `manual_order_receipt:${order.id}`,
        to: order.customerEmail,
        data: await manualOrderReceipt(tx, tenant, order, links),
      });
      return { emailWorkflowId: workflowId };
    }
    throw new Error(`unknown fulfillment step "${step}" of manual order ${order.id}`);
  }

  return {
    /** The steps for the workflow to run, from the confirmed row alone (so the same on every try). */
    async plan(tenant: Tenant, orderId: string): Promise<string[]> {
      return planManualOrderFulfillment((await confirmedOrder(tenant, orderId)).lines);
    },

    /** Applies one step once, under the order's row lock (so steps of one order never interleave). */
    async runStep(tenant: Tenant, orderId: string, step: string): Promise<StepOutcome> {
      return sequelize.transaction(async (tx) => {
        const order = await confirmedOrder(tenant, orderId, tx);
        if (!(await claimManualOrderStep(tx, order.id, step))) return 'already_applied';
        await recordManualOrderStepResult(tx, order.id, step, await apply(tx, tenant, order, step));
        return 'applied';
      });
    },
  };
}

export type ManualOrderFulfillment = ReturnType<typeof createManualOrderFulfillment>;
