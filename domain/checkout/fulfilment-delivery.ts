import type { Transaction } from 'sequelize';
import { CheckoutSession, Delivery, Product, ProductFile, type DeliveryKind } from '../../db/models';
import { emit } from '../../db/outbox';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { newId } from '../../lib/ids';
import { issueLicense } from '../licenses/issue';

/**
 * Downloads a new delivery allows (docs/decisions/checkout.md, "Fulfilment"): enough for a buyer's devices and a
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
}

/**
 * The delivery of one paid product line (document 1, "Delivery creation"), in the caller's transaction, which
 * makes it happen once: a licence when the product issues them, the product's newest file when it is digital
 * and has one, and `product.purchased` for the delivery. Kind: `download` when there is a file (carrying the
 * licence key too, when there is one: the buyer needs the software and its key), `license` for a key alone,
 * `manual` for everything else (physical products, until shipments come with the fulfilment module).
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
  const kind: DeliveryKind = file ? 'download' : licenseKey ? 'license' : 'manual';

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

/** The delivery of one product line of a completed session (see deliverPurchasedLine). */
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
  });
}
