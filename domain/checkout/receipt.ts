import { Op, type Transaction } from 'sequelize';
import { Delivery, ProductFile, type CheckoutSession } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import type { EmailDataInput } from '../../lib/email';
import type { DownloadLinks } from '../deliveries/links';
import { lineLabel } from './dto';

/**
 * A stored value as one line of at most `max` characters for the e-mail's checked payload: the session was
 * validated by whoever created it, but a receipt that fails its own schema would retry forever, so line
 * breaks and controls become spaces and an over-long name is cut.
 */
function oneLine(value: string, max: number): string {
  return [...value.replace(/\p{Cc}+/gu, ' ').trim()].slice(0, max).join('').trim();
}

const isHttpUrl = (value: string | null): value is string => value !== null && /^https?:\/\//i.test(value);

/**
 * The buyer's receipt (`checkout_receipt`) of a fulfilled session: its lines (or its description, for a session
 * without lines), the total paid, a freshly signed link per download delivery whose file still exists, and
 * every licence key. Read after the delivery steps, in the receipt step's transaction.
 */
export async function checkoutReceipt(
  tx: Transaction,
  tenant: Tenant,
  session: CheckoutSession,
  links: DownloadLinks,
  now = Date.now(),
): Promise<EmailDataInput<'checkout_receipt'>> {
  const scope = tenantWhere(tenant);
  const deliveries = await Delivery.findAll({ where: { checkoutSessionId: session.id, ...scope }, transaction: tx });
  const fileIds = deliveries.flatMap((d) => (d.kind === 'download' && d.fileId ? [d.fileId] : []));
  const files = new Map(
    (await ProductFile.findAll({ where: { id: { [Op.in]: fileIds }, ...scope }, attributes: ['id', 'fileName'], transaction: tx })).map((f) => [f.id, f.fileName]),
  );
  const byLine = new Map(deliveries.map((d) => [d.lineKey, d]));

  const downloads: { name: string; url: string }[] = [];
  const licenceKeys: { product: string; key: string }[] = [];
  for (const line of session.lineItems) {
    const delivery = byLine.get(line.lineKey);
    const fileName = delivery?.fileId ? files.get(delivery.fileId) : undefined;
    if (delivery && delivery.kind === 'download' && fileName) downloads.push({ name: oneLine(fileName, 300) || 'Download', url: links.sign(delivery.id, now).url });
    if (delivery?.licenseKey) licenceKeys.push({ product: oneLine(lineLabel(line), 300) || 'Licence', key: delivery.licenseKey });
  }

  const lines = session.lineItems.length
    ? session.lineItems.map((line) => ({ name: oneLine(lineLabel(line), 300) || 'Item', quantity: line.quantity, amount: line.amount }))
    : [{ name: oneLine(session.description, 300) || 'Purchase', quantity: 1, amount: session.amount }];
  const buyerName = session.customerName ? oneLine(session.customerName, 200) : '';
  return {
    ...(buyerName ? { buyerName } : {}),
    orderNumber: session.id,
    currency: session.currency as EmailDataInput<'checkout_receipt'>['currency'],
    lines: lines.slice(0, 100),
    total: session.amount,
    downloads: downloads.slice(0, 100),
    licenceKeys: licenceKeys.slice(0, 100),
    ...(isHttpUrl(session.successUrl) ? { successUrl: session.successUrl } : {}),
  };
}
