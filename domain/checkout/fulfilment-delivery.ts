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

/**
 * The delivery of one product line of a completed session (document 1, "Delivery creation"), in the step's
 * transaction: a licence when the product issues them, the product's newest file when it is digital and has
 * one, and `product.purchased` for the delivery. Kind: `download` when there is a file (carrying the licence key
 * too, when there is one: the buyer needs the software and its key), `license` for a key alone, `manual` for
 * everything else (physical products, until shipments come with the fulfilment module).
 */
export async function deliverLine(tx: Transaction, tenant: Tenant, session: CheckoutSession, lineKey: string): Promise<DeliveredLine> {
  const scope = tenantWhere(tenant);
  const line = session.lineItems.find((item) => item.lineKey === lineKey);
  if (!line?.productId) throw new Error(`checkout session ${session.id} has no product line "${lineKey}"`);
  // Archived products too: the buyer paid before the archive.
  const product = await Product.findOne({ where: { id: line.productId, ...scope }, attributes: ['id', 'type', 'licenseEnabled'], transaction: tx });
  if (!product) throw new Error(`product ${line.productId} of checkout session ${session.id} does not exist`);

  const file =
    product.type === 'digital'
      ? await ProductFile.findOne({ where: { productId: product.id, ...scope }, attributes: ['id'], order: [['createdAt', 'DESC'], ['id', 'DESC']], transaction: tx })
      : null;
  const licenseKey = product.licenseEnabled
    ? (await issueLicense(tx, tenant, { productId: product.id, customerId: session.customerId, checkoutSessionId: session.id, lineKey })).key
    : null;
  const kind: DeliveryKind = file ? 'download' : licenseKey ? 'license' : 'manual';

  const delivery = await Delivery.create(
    {
      id: newId('del'),
      ...scope,
      checkoutSessionId: session.id,
      lineKey,
      productId: product.id,
      customerId: session.customerId,
      kind,
      fileId: file?.id ?? null,
      downloadCount: file ? 0 : null,
      downloadLimit: file ? DEFAULT_DOWNLOAD_LIMIT : null,
      licenseKey,
      metadata: session.metadata,
    },
    { transaction: tx },
  );
  const event = await emit(tx, tenant, 'product.purchased', {
    deliveryId: delivery.id,
    productId: product.id,
    variantId: line.variantId,
    quantity: line.quantity,
    checkoutSessionId: session.id,
    kind,
    licenseKey,
    customerId: session.customerId,
    customerEmail: session.customerEmail,
    metadata: { ...session.metadata, hasShipping: product.type === 'physical' },
  });
  return { deliveryId: delivery.id, kind, fileId: file?.id ?? null, licenseKey, eventId: event.id };
}
