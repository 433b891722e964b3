import { Op, type Sequelize, type Transaction } from 'sequelize';
import { claimManualOrderStep, recordManualOrderStepResult } from '../../db/manual-order-steps';
import { Delivery, ManualOrder, Product, ProductFile, type DeliveryKind } from '../../db/models';
import { emit } from '../../db/outbox';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { requireEncryptionKey, type Config } from '../../lib/config';
import type { CryptoBox } from '../../lib/crypto-box';
import type { EmailDataInput } from '../../lib/email';
import { newId } from '../../lib/ids';
import { createDownloadLinks, type DownloadLinks } from '../deliveries/links';
import { createEmailQueue } from '../email/queue';
import { issueLicense } from '../licenses/issue';
import { lineKeyOfStep, MANUAL_ORDER_STEPS, planManualOrderFulfilment } from './fulfilment-plan';

/** Downloads one delivery allows, as for a paid checkout (docs/decisions/checkout.md). */
const DOWNLOAD_LIMIT = 5;

export type StepOutcome = 'applied' | 'already_applied';

/**
 * One line's delivery, in the step's transaction: a licence when the product issues them, the product's newest
 * file when it is digital, and `product.purchased` for the delivery (document 1, "Delivery creation").
 */
async function deliverLine(tx: Transaction, tenant: Tenant, order: ManualOrder, lineKey: string) {
  const scope = tenantWhere(tenant);
  const line = order.lines.find((item) => item.lineKey === lineKey);
  if (!line) throw new Error(`manual order ${order.id} has no line "${lineKey}"`);
  // Archived products too: the buyer ordered before the archive.
  const product = await Product.findOne({ where: { id: line.productId, ...scope }, attributes: ['id', 'type', 'licenseEnabled'], transaction: tx });
  if (!product) throw new Error(`product ${line.productId} of manual order ${order.id} does not exist`);
  const file =
    product.type === 'digital'
      ? await ProductFile.findOne({ where: { productId: product.id, ...scope }, attributes: ['id'], order: [['createdAt', 'DESC'], ['id', 'DESC']], transaction: tx })
      : null;
  const licenseKey = product.licenseEnabled ? (await issueLicense(tx, tenant, { productId: product.id })).key : null;
  const kind: DeliveryKind = file ? 'download' : licenseKey ? 'license' : 'manual';
  const delivery = await Delivery.create(
    {
      id: newId('del'),
      ...scope,
      manualOrderId: order.id,
      lineKey,
      productId: product.id,
      kind,
      fileId: file?.id ?? null,
      downloadCount: file ? 0 : null,
      downloadLimit: file ? DOWNLOAD_LIMIT : null,
      licenseKey,
      metadata: order.metadata,
    },
    { transaction: tx },
  );
  const event = await emit(tx, tenant, 'product.purchased', {
    deliveryId: delivery.id,
    productId: product.id,
    variantId: line.variantId,
    quantity: line.quantity,
    checkoutSessionId: null,
    manualOrderId: order.id,
    kind,
    licenseKey,
    customerId: null,
    customerEmail: order.customerEmail,
    metadata: { ...order.metadata, hasShipping: product.type === 'physical' },
  });
  return { deliveryId: delivery.id, kind, licenseKey, eventId: event.id };
}

/** The buyer's receipt: every line, the total paid, a freshly signed link per download and every licence key. */
async function receipt(tx: Transaction, order: ManualOrder, links: DownloadLinks): Promise<EmailDataInput<'checkout_receipt'>> {
  const deliveries = await Delivery.findAll({ where: { manualOrderId: order.id }, transaction: tx });
  const fileIds = deliveries.flatMap((d) => (d.kind === 'download' && d.fileId ? [d.fileId] : []));
  const files = new Map((await ProductFile.findAll({ where: { id: { [Op.in]: fileIds } }, attributes: ['id', 'fileName'], transaction: tx })).map((f) => [f.id, f.fileName]));
  const byLine = new Map(deliveries.map((d) => [d.lineKey, d]));
  const downloads: { name: string; url: string }[] = [];
  const licenceKeys: { product: string; key: string }[] = [];
  for (const line of order.lines) {
    const delivery = byLine.get(line.lineKey);
    const fileName = delivery?.fileId ? files.get(delivery.fileId) : undefined;
    if (delivery?.kind === 'download' && fileName) downloads.push({ name: fileName, url: links.sign(delivery.id).url });
    if (delivery?.licenseKey) licenceKeys.push({ product: line.productName, key: delivery.licenseKey });
  }
  return {
    ...(order.customerName ? { buyerName: order.customerName } : {}),
    orderNumber: order.orderNumber,
    currency: order.currency,
    lines: order.lines.map((line) => ({ name: line.productName, quantity: line.quantity, amount: line.amount })),
    total: order.amount,
    downloads,
    licenceKeys,
  };
}

/**
 * The fulfilment of a confirmed manual order: the steps of `planManualOrderFulfilment`, each applied once in
 * a transaction that first claims its row in `manual_order_fulfilment_steps` (a step whose row exists did its
 * work already), so a retried activity, a replayed workflow or a second worker apply each effect once.
 */
export function createManualOrderFulfilment({ sequelize, config, box }: { sequelize: Sequelize; config: Config; box: CryptoBox }) {
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
    if (lineKey !== undefined) return deliverLine(tx, tenant, order, lineKey);
    if (step === MANUAL_ORDER_STEPS.receipt) {
      const { workflowId } = await emails.queue(tx, tenant, {
        kind: 'checkout_receipt',
        businessKey: `manual_order_receipt:${order.id}`,
        to: order.customerEmail,
        data: await receipt(tx, order, links),
      });
      return { emailWorkflowId: workflowId };
    }
    throw new Error(`unknown fulfilment step "${step}" of manual order ${order.id}`);
  }

  return {
    /** The steps for the workflow to run, from the confirmed row alone (so the same on every try). */
    async plan(tenant: Tenant, orderId: string): Promise<string[]> {
      return planManualOrderFulfilment((await confirmedOrder(tenant, orderId)).lines);
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

export type ManualOrderFulfilment = ReturnType<typeof createManualOrderFulfilment>;
