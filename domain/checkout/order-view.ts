import { Account, CheckoutSession, Delivery, License, ManualOrder, Product, ProductFile } from '../../db/models';
import type { CheckoutStatus, DeliveryKind, Environment, LicenseStatus, ManualFulfillmentStatus, ManualPaymentStatus } from '../../db/models';
import { tenantWhere } from '../../db/tenancy';
import { requireEncryptionKey } from '../../lib/config';
import { notFound } from '../../lib/errors';
import { isId } from '../../lib/ids';
import type { MoneyCurrency } from '../../lib/money';
import { buyerStatus, maskEmail } from './public-view';
import { licenseStatus } from '../licenses';
import type { ServiceDeps } from '../service-deps';
import { httpUrlOrNull, pageMerchantOf, type PageMerchant } from '../storefront';
import { createDownloadLinks } from '../deliveries';

/**
 * The buyer's order page (document 1: `/order/:deliveryId`, "the `del_` id acts as the credential"): one
 * delivery with what the buyer bought and paid, read on every load. Served as JSON by the public storefront
 * (`GET /v1/storefront/public/order/:deliveryId`) and as HTML at `/order/:deliveryId` (api/pages/order).
 *
 * Buyer-safe by construction (docs/decisions/deliveries.md, "Order page"): no workspace id, metadata, customer
 * id or record, session or order id, buyer name, phone or address, no other line's delivery, and the receipt
 * address masked. Every URL it carries is http(s) or one this service signed.
 */

export interface OrderViewLine {
  /** The name the buyer paid for (the line's snapshot), not the catalogue's current one. */
  name: string;
  variantName: string | null;
  quantity: number;
  unitAmount: number;
  amount: number;
}

export interface OrderViewDownload {
  /** Signed anew on every load, valid 7 days from it; null once the file was deleted. */
  url: string | null;
  expiresAt: Date | null;
  fileName: string | null;
  count: number;
  limit: number | null;
  limitReached: boolean;
}

export interface OrderViewLicense {
  key: string;
  /** The licence's status now (`expired` read from `expiresAt`); null when the key has no licence record. */
  status: LicenseStatus | null;
  expiresAt: Date | null;
}

export interface OrderViewOrder {
  source: 'checkout' | 'manual_order';
  /** The manual order's number (the buyer's reference in its e-mails); null for a checkout. */
  orderNumber: string | null;
  /** The session's status as the buyer sees it, or the manual order's `paymentStatus`. */
  status: CheckoutStatus | ManualPaymentStatus;
  /** Manual orders only. */
  fulfillmentStatus: ManualFulfillmentStatus | null;
  /** The order's lines before its discount. */
  subtotal: number;
  /** The code the buyer applied and what it took off the order; null without one. */
  discount: { code: string; amount: number } | null;
  amount: number;
  currency: MoneyCurrency;
  /** How many lines the order has (this page shows one of them). */
  lineCount: number;
  customerEmailMasked: string;
  placedAt: Date;
  paidAt: Date | null;
  /** Manual orders: what the merchant set when shipping by hand. */
  trackingCourier: string | null;
  trackingNumber: string | null;
}

export interface OrderView {
  deliveryId: string;
  environment: Environment;
  kind: DeliveryKind;
  deliveredAt: Date;
  merchant: PageMerchant & { slug: string | null };
  product: { id: string; thumbnail: string | null };
  line: OrderViewLine;
  download: OrderViewDownload | null;
  license: OrderViewLicense | null;
  shipment: { id: string } | null;
  order: OrderViewOrder;
}

type Tenanted = Pick<Delivery, 'accountId' | 'environment'>;

const discountOf = ({ discountCode, discountAmount }: { discountCode: string | null; discountAmount: number }) =>
  discountCode && discountAmount > 0 ? { code: discountCode, amount: discountAmount } : null;

/** The order a delivery fulfils, with its line for the delivery; undefined when either is missing. */
async function orderOf(delivery: Delivery, now: Date): Promise<{ order: OrderViewOrder; line: OrderViewLine } | undefined> {
  const tenant = tenantWhere(delivery);
  if (delivery.checkoutSessionId) {
    const session = await CheckoutSession.findOne({ where: { id: delivery.checkoutSessionId, ...tenant } });
    const line = session?.lineItems.find((item) => item.lineKey === delivery.lineKey);
    if (!session || !line) return undefined;
    return {
      line: { name: line.name, variantName: null, quantity: line.quantity, unitAmount: line.unitAmount, amount: line.amount },
      order: {
        source: 'checkout',
        orderNumber: null,
        status: buyerStatus(session, now),
        fulfillmentStatus: null,
        subtotal: session.subtotal,
        discount: discountOf(session),
        amount: session.amount,
        currency: session.currency as MoneyCurrency,
        lineCount: session.lineItems.length,
        customerEmailMasked: maskEmail(session.customerEmail),
        placedAt: session.createdAt,
        paidAt: session.completedAt,
        trackingCourier: null,
        trackingNumber: null,
      },
    };
  }
  if (delivery.manualOrderId) {
    const order = await ManualOrder.findOne({ where: { id: delivery.manualOrderId, ...tenant } });
    const line = order?.lines.find((item) => item.lineKey === delivery.lineKey);
    if (!order || !line) return undefined;
    return {
      line: { name: line.productName, variantName: line.variantName, quantity: line.quantity, unitAmount: line.unitAmount, amount: line.amount },
      order: {
        source: 'manual_order',
        orderNumber: order.orderNumber,
        status: order.paymentStatus,
        fulfillmentStatus: order.fulfillmentStatus,
        subtotal: order.subtotal,
        discount: discountOf(order),
        amount: order.amount,
        currency: order.currency as MoneyCurrency,
        lineCount: order.lines.length,
        customerEmailMasked: maskEmail(order.customerEmail),
        placedAt: order.placedAt,
        paidAt: order.paymentConfirmedAt,
        trackingCourier: order.trackingCourier,
        trackingNumber: order.trackingNumber,
      },
    };
  }
  return undefined;
}

async function licenseOf(tenant: Tenanted, key: string | null, now: Date): Promise<OrderViewLicense | null> {
  if (!key) return null;
  const row = await License.findOne({ where: { key, ...tenantWhere(tenant) }, attributes: ['status', 'expiresAt'] });
  return { key, status: row ? licenseStatus(row, now.getTime()) : null, expiresAt: row?.expiresAt ?? null };
}

export function createOrderPageService({ config }: Pick<ServiceDeps, 'config'>) {
  const links = createDownloadLinks({ secret: requireEncryptionKey(config), publicBaseUrl: config.PUBLIC_BASE_URL });

  async function downloadOf(delivery: Delivery, now: Date): Promise<OrderViewDownload | null> {
    if (delivery.kind !== 'download') return null;
    const count = delivery.downloadCount ?? 0;
    const limitReached = delivery.downloadLimit !== null && count >= delivery.downloadLimit;
    // The file the download route would serve: the delivery's, of its product, in its workspace and environment.
    const file = delivery.fileId
      ? await ProductFile.findOne({ where: { id: delivery.fileId, productId: delivery.productId, ...tenantWhere(delivery) }, attributes: ['fileName'] })
      : null;
    if (!file) return { url: null, expiresAt: null, fileName: null, count, limit: delivery.downloadLimit, limitReached };
    const link = links.sign(delivery.id, now.getTime());
    return { url: link.url, expiresAt: link.expiresAt, fileName: file.fileName, count, limit: delivery.downloadLimit, limitReached };
  }

  /** The order page of `deliveryId` as of `now`; undefined for an unknown or malformed id (answered 404 without a query). */
  async function view(deliveryId: string, now = new Date()): Promise<OrderView | undefined> {
    if (!isId(deliveryId, 'del')) return undefined;
    // Not tenant-scoped: the id is the credential. Everything after it is read within the delivery's own tenant.
    const delivery = await Delivery.findByPk(deliveryId);
    if (!delivery) return undefined;
    const tenant = tenantWhere(delivery);
    const [placed, account, product, download, license] = await Promise.all([
      orderOf(delivery, now),
      Account.findByPk(delivery.accountId, { attributes: ['name', 'slug', 'brandColor', 'brandLogo'] }),
      // Archived products too: the buyer bought it before the archive.
      Product.findOne({ where: { id: delivery.productId, ...tenant }, attributes: ['id', 'thumbnail'] }),
      downloadOf(delivery, now),
      licenseOf(delivery, delivery.licenseKey, now),
    ]);
    // Fulfillment writes every delivery for a line of a session or a manual order; anything else is no buyer's order.
    if (!placed || !account) return undefined;
    return {
      deliveryId: delivery.id,
      environment: delivery.environment,
      kind: delivery.kind,
      deliveredAt: delivery.deliveredAt,
      merchant: { ...pageMerchantOf(account), slug: account.slug },
      product: { id: delivery.productId, thumbnail: httpUrlOrNull(product?.thumbnail ?? null) },
      line: placed.line,
      download,
      license,
      shipment: delivery.shipmentId ? { id: delivery.shipmentId } : null,
      order: placed.order,
    };
  }

  return {
    view,

    /** The JSON answer of the public storefront's order route; `404 RESOURCE_NOT_FOUND` when there is no such order page. */
    async publicOrder(deliveryId: string, now = new Date()) {
      const found = await view(deliveryId, now);
      if (!found) throw notFound('Order');
      return toPublicOrderDto(found);
    },
  };
}

export type OrderPageService = ReturnType<typeof createOrderPageService>;

const iso = (value: Date | null) => value?.toISOString() ?? null;

export function toPublicOrderDto(view: OrderView) {
  const { merchant, line, download, license, order } = view;
  return {
    id: view.deliveryId,
    environment: view.environment,
    kind: view.kind,
    deliveredAt: view.deliveredAt.toISOString(),
    product: { id: view.product.id, name: line.name, variantName: line.variantName, thumbnail: view.product.thumbnail },
    line: { quantity: line.quantity, unitAmount: line.unitAmount, amount: line.amount, currency: order.currency },
    download: download && {
      url: download.url,
      expiresAt: iso(download.expiresAt),
      fileName: download.fileName,
      downloadCount: download.count,
      downloadLimit: download.limit,
      limitReached: download.limitReached,
    },
    license: license && { key: license.key, status: license.status, expiresAt: iso(license.expiresAt) },
    shipment: view.shipment,
    order: { ...order, placedAt: order.placedAt.toISOString(), paidAt: iso(order.paidAt) },
    merchant: { name: merchant.name, slug: merchant.slug, brandColor: merchant.brandColor, brandLogo: merchant.logoUrl },
  };
}

export type PublicOrderDto = ReturnType<typeof toPublicOrderDto>;
