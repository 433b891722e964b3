import { Op, type Transaction } from 'sequelize';
import { Delivery, ProductFile, type CheckoutSession } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import type { EmailDataInput } from '../../lib/email';
import type { DownloadLinks } from '../deliveries';
import { lineLabel } from './dto';

/**
 * A stored value as one line of at most `max` characters for the e-mail's checked payload: the session was
 * validated by whoever created it, but a receipt that fails its own schema would retry forever, so line
 * breaks and controls become spaces and an over-long name is cut.
 */
function oneLine(value: string, max: number): string {
  return [...value.replace(/\p{Cc}+/gu, ' ').trim()].slice(0, max).join('').trim();
}

/** What a receipt is of: a fulfilled checkout session or a confirmed manual order, with its deliveries. */
export interface ReceiptSource {
  /** Whose deliveries the links and keys come from. */
  deliveries: { checkoutSessionId: string } | { manualOrderId: string };
  /** The reference the buyer sees: the session id or the order number. */
  orderNumber: string;
  customerName: string | null;
  currency: string;
  /** Given with `discount`: the lines' sum before it. */
  subtotal?: number;
  /** The code the buyer applied and what it took off; left out or null without one. */
  discount?: { code: string; amount: number } | null;
  total: number;
  lines: { lineKey: string; name: string; quantity: number; amount: number }[];
  /**
   * @deprecated Not shown: "View your order" is the order page. Still accepted because domain/manual-orders
   * passes `null`; drop it with that caller.
   */
  successUrl?: string | null;
}

/**
 * The buyer's receipt (`checkout_receipt`): the lines, the subtotal and discount, the total paid, a freshly signed
 * link per download delivery whose file still exists, every licence key, and "View your order": the order page of
 * the first line's delivery (each line's delivery has a page; the first is the one a one-item order has). Read
 * after the delivery steps, in the receipt step's transaction.
 */
export async function purchaseReceipt(
  tx: Transaction,
  tenant: Tenant,
  source: ReceiptSource,
  links: DownloadLinks,
  now = Date.now(),
): Promise<EmailDataInput<'checkout_receipt'>> {
  const scope = tenantWhere(tenant);
  const deliveries = await Delivery.findAll({ where: { ...source.deliveries, ...scope }, transaction: tx });
  const fileIds = deliveries.flatMap((d) => (d.kind === 'download' && d.fileId ? [d.fileId] : []));
  const files = new Map(
    (await ProductFile.findAll({ where: { id: { [Op.in]: fileIds }, ...scope }, attributes: ['id', 'fileName'], transaction: tx })).map((f) => [f.id, f.fileName]),
  );
  const byLine = new Map(deliveries.map((d) => [d.lineKey, d]));

  const downloads: { name: string; url: string }[] = [];
  const licenceKeys: { product: string; key: string }[] = [];
  for (const line of source.lines) {
    const delivery = byLine.get(line.lineKey);
    const fileName = delivery?.fileId ? files.get(delivery.fileId) : undefined;
    if (delivery && delivery.kind === 'download' && fileName) downloads.push({ name: oneLine(fileName, 300) || 'Download', url: links.sign(delivery.id, now).url });
    if (delivery?.licenseKey) licenceKeys.push({ product: oneLine(line.name, 300) || 'Licence', key: delivery.licenseKey });
  }

  const firstDelivered = source.lines.map((line) => byLine.get(line.lineKey)).find((delivery) => delivery !== undefined);
  const buyerName = source.customerName ? oneLine(source.customerName, 200) : '';
  const code = source.discount ? oneLine(source.discount.code, 100) : '';
  return {
    ...(buyerName ? { buyerName } : {}),
    orderNumber: source.orderNumber,
    currency: source.currency as EmailDataInput<'checkout_receipt'>['currency'],
    lines: source.lines.map((line) => ({ name: oneLine(line.name, 300) || 'Item', quantity: line.quantity, amount: line.amount })).slice(0, 100),
    ...(source.discount && source.discount.amount > 0 && code && source.subtotal !== undefined ? { subtotal: source.subtotal, discount: { code, amount: source.discount.amount } } : {}),
    total: source.total,
    downloads: downloads.slice(0, 100),
    licenceKeys: licenceKeys.slice(0, 100),
    ...(firstDelivered ? { orderUrl: links.orderPageUrl(firstDelivered.id) } : {}),
  };
}

/** A fulfilled session's receipt: its lines, or its description for a session without lines. */
export function checkoutReceipt(tx: Transaction, tenant: Tenant, session: CheckoutSession, links: DownloadLinks, now = Date.now()): Promise<EmailDataInput<'checkout_receipt'>> {
  const lines = session.lineItems.length
    ? session.lineItems.map((line) => ({ lineKey: line.lineKey, name: lineLabel(line), quantity: line.quantity, amount: line.amount }))
    : [{ lineKey: '', name: oneLine(session.description, 300) || 'Purchase', quantity: 1, amount: session.amount }];
  return purchaseReceipt(
    tx,
    tenant,
    {
      deliveries: { checkoutSessionId: session.id },
      orderNumber: session.id,
      customerName: session.customerName,
      currency: session.currency,
      subtotal: session.subtotal,
      discount: session.discountCode ? { code: session.discountCode, amount: session.discountAmount } : null,
      total: session.amount,
      lines,
    },
    links,
    now,
  );
}
