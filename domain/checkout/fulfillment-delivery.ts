import type { Transaction } from 'sequelize';
import { Account, CheckoutSession, Delivery, Product, ProductFile, type CheckoutLineItem, type DeliveryKind } from '../../db/models';
import { emit } from '../../db/outbox';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { newId } from '../../lib/ids';
import { issueLicense } from '../licenses';
import { createShipmentForCheckoutLine, placeFromShippingAddress, shippingChoiceOf } from '../shipping';
import { lineLabel } from './dto';

/**
 * Downloads a new delivery allows (docs/decisions/checkout.md, "Fulfillment"): enough for a buyer's devices and a
 * lost file, few enough that a link posted publicly stops working. Each retrieve re-signs the link; the count
 * is per delivery, whatever link was used.
 */
export const DEFAULT_DOWNLOAD_LIMIT = 5;

/** What one product line was delivered as. */
export interface DeliveredLine {
  deliveryId: string;
  kind: DeliveryKind;
  fileId: string | null;
  licenseKey: string | null;
  eventId: string;
}

/** One paid product line, from a completed checkout session or a confirmed manual order. */
export interface PurchasedLine {
  /** Where it was bought: exactly one of the two is set. */
  checkoutSessionId: string | null;
  manualOrderId: string | null;
  lineKey: string;
  productId: string;
  variantId: string | null;
  quantity: number;
  customerId: string | null;
  customerEmail: string;
  /** Forwarded to the delivery and to `product.purchased`. */
  metadata: Record<string, unknown>;
  /** The shipment created for this line, which makes it a `shipment` delivery. */
  shipmentId?: string | null;
}

/**
 * The delivery of one paid product line (document 1, "Delivery creation"), in the caller's transaction, which
 * makes it happen once: a licence when the product issues them, the product's newest file when it is digital
 * and has one, and `product.purchased` for the delivery. Kind: `download` when there is a file (carrying the
 * licence key too, when there is one: the buyer needs the software and its key), `license` for a key alone,
 * `shipment` for a physical line that ships (see deliverLine), `manual` for everything else.
 */
export async function deliverPurchasedLine(tx: Transaction, tenant: Tenant, purchase: PurchasedLine): Promise<DeliveredLine> {
  const scope = tenantWhere(tenant);
  const source = purchase.checkoutSessionId ?? purchase.manualOrderId;
  // Archived products too: the buyer paid before the archive.
  const product = await Product.findOne({ where: { id: purchase.productId, ...scope }, attributes: ['id', 'type', 'licenseEnabled'], transaction: tx });
  if (!product) throw new Error(`product ${purchase.productId} of ${source} does not exist`);

  const file =
    product.type === 'digital'
      ? await ProductFile.findOne({ where: { productId: product.id, ...scope }, attributes: ['id'], order: [['createdAt', 'DESC'], ['id', 'DESC']], transaction: tx })
      : null;
  const licenseKey = product.licenseEnabled
    ? (
        await issueLicense(tx, tenant, {
          productId: product.id,
          customerId: purchase.customerId,
          // A session's licence is also idempotent per (session, line); a manual order's step claim makes it once.
          checkoutSessionId: purchase.checkoutSessionId,
          lineKey: purchase.lineKey,
        })
      ).key
    : null;
  const shipmentId = purchase.shipmentId ?? null;
  const kind: DeliveryKind = file ? 'download' : licenseKey ? 'license' : shipmentId ? 'shipment' : 'manual';

  const delivery = await Delivery.create(
    {
      id: newId('del'),
      ...scope,
      checkoutSessionId: purchase.checkoutSessionId,
      manualOrderId: purchase.manualOrderId,
      lineKey: purchase.lineKey,
      productId: product.id,
      customerId: purchase.customerId,
      kind,
      fileId: file?.id ?? null,
      downloadCount: file ? 0 : null,
      downloadLimit: file ? DEFAULT_DOWNLOAD_LIMIT : null,
      licenseKey,
      shipmentId,
      metadata: purchase.metadata,
    },
    { transaction: tx },
  );
  const event = await emit(tx, tenant, 'product.purchased', {
    deliveryId: delivery.id,
    productId: product.id,
    variantId: purchase.variantId,
    quantity: purchase.quantity,
    checkoutSessionId: purchase.checkoutSessionId,
    manualOrderId: purchase.manualOrderId,
    kind,
    licenseKey,
    customerId: purchase.customerId,
    customerEmail: purchase.customerEmail,
    metadata: { ...purchase.metadata, hasShipping: product.type === 'physical' },
  });
  return { deliveryId: delivery.id, kind, fileId: file?.id ?? null, licenseKey, eventId: event.id };
}

/**
 * The shipment of a physical line of a session that ships: the fulfillment module on, a shipping address and the
 * courier choice in its metadata (checked when the session was created). Null otherwise: the line is `manual`.
 */
async function shipmentFor(tx: Transaction, tenant: Tenant, session: CheckoutSession, line: CheckoutLineItem): Promise<string | null> {
  const choice = shippingChoiceOf(session.metadata);
  if (!choice || !session.shippingAddress || !line.productId) return null;
  const product = await Product.findOne({ where: { id: line.productId, ...tenantWhere(tenant) }, attributes: ['type', 'name', 'weight', 'length', 'width', 'height'], transaction: tx });
  if (product?.type !== 'physical') return null;
  const account = await Account.findByPk(tenant.accountId, { attributes: ['fulfillmentEnabled'], transaction: tx });
  if (!account?.fulfillmentEnabled) return null;
  const dimensions = product.length && product.width && product.height ? { length: product.length, width: product.width, height: product.height } : {};
  const { shipmentId } = await createShipmentForCheckoutLine(tx, tenant, {
    checkoutSessionId: session.id,
    lineKey: line.lineKey,
    ...choice,
    destination: placeFromShippingAddress(session.shippingAddress),
    items: [{ name: lineLabel(line), value: line.unitAmount, weight: product.weight ?? 0, quantity: line.quantity, ...dimensions }],
  });
  return shipmentId;
}

/** The delivery of one product line of a completed session (see deliverPurchasedLine), its shipment included. */
export async function deliverLine(tx: Transaction, tenant: Tenant, session: CheckoutSession, lineKey: string): Promise<DeliveredLine> {
  const line = session.lineItems.find((item) => item.lineKey === lineKey);
  if (!line?.productId) throw new Error(`checkout session ${session.id} has no product line "${lineKey}"`);
  return deliverPurchasedLine(tx, tenant, {
    checkoutSessionId: session.id,
    manualOrderId: null,
    lineKey,
    productId: line.productId,
    variantId: line.variantId,
    quantity: line.quantity,
    customerId: session.customerId,
    customerEmail: session.customerEmail,
    metadata: session.metadata,
    shipmentId: await shipmentFor(tx, tenant, session, line),
  });
}
