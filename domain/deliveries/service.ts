import type { Readable } from 'node:stream';
import type { Transaction } from 'sequelize';
import { CheckoutSession, Delivery, ManualOrder, ProductFile } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import type { EmailDataInput } from '../../lib/email';
import { tenantWhere } from '../../db/tenancy';
import { requireEncryptionKey } from '../../lib/config';
import { AppError, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AuthContext } from '../auth-context';
import { createEmailQueue } from '../email';
import type { ServiceDeps } from '../service-deps';
import { startRecordedNow } from '../workflow-starts';
import { toDeliveryDto, type DeliveryDto } from './dto';
import { createDownloadLinks, type DownloadLinks } from './links';

/** Why a download link was refused, in `error.details.reason` beside the one documented code (docs/decisions/deliveries.md). */
export type DownloadRefusal = 'invalid_signature' | 'expired' | 'download_limit_reached';

const refused = (reason: DownloadRefusal, message: string) => new AppError('FORBIDDEN', message, { reason });

/** What the public download route streams: the file's bytes as stored, under the name the buyer sees. */
export interface DownloadFile {
  body: Readable;
  size: number;
  fileName: string;
  mimeType: string | null;
}

type Receipt = Promise<EmailDataInput<'checkout_receipt'>>;

/**
 * The receipt a delivery's e-mail carries, built by the area that sold it. Handed in by domain/services.ts: checkout
 * and manual orders sit above deliveries (their fulfillment creates deliveries), so deliveries cannot import them.
 */
export interface DeliveryReceipts {
  checkout(tx: Transaction, tenant: Tenant, session: CheckoutSession, links: DownloadLinks): Receipt;
  manualOrder(tx: Transaction, tenant: Tenant, order: ManualOrder, links: DownloadLinks): Receipt;
}

/**
 * Deliveries: the merchant's read-only list and retrieve (secret key), the buyer's download through a signed link
 * (no key: the link is the credential), and the dashboard's resend of the delivery e-mail.
 */
export function createDeliveryService(deps: Pick<ServiceDeps, 'sequelize' | 'storage' | 'config' | 'box' | 'starters' | 'logger'>, receipts: DeliveryReceipts) {
  const { sequelize, storage, config } = deps;
  const links = createDownloadLinks({ secret: requireEncryptionKey(config), publicBaseUrl: config.PUBLIC_BASE_URL });
  const emails = createEmailQueue(deps);

  return {
    /** Every delivery, newest first: document 1 gives this list no pagination. */
    async list(auth: AuthContext): Promise<DeliveryDto[]> {
      const now = Date.now();
      const rows = await Delivery.findAll({ where: tenantWhere(auth), order: [['id', 'DESC']] });
      return rows.map((row) => toDeliveryDto(row, links, now));
    },

    /** What one checkout session delivered (the dashboard's session page), oldest first. */
    async listOfCheckoutSession(auth: AuthContext, checkoutSessionId: string): Promise<DeliveryDto[]> {
      const now = Date.now();
      const rows = await Delivery.findAll({ where: { checkoutSessionId, ...tenantWhere(auth) }, order: [['id', 'ASC']] });
      return rows.map((row) => toDeliveryDto(row, links, now));
    },

    async retrieve(auth: AuthContext, id: string): Promise<DeliveryDto> {
      const row = await Delivery.findOne({ where: { id, ...tenantWhere(auth) } });
      if (!row) throw notFound('Delivery');
      return toDeliveryDto(row, links);
    },

    /**
     * Sends the delivery's e-mail again (document 1: dashboard only): the receipt of its checkout session or manual
     * order, rendered now (fresh download links, the merchant's settings of today), to the buyer's address. Each
     * call is a new message under its own business key, sent exactly once through the e-mail module like the first.
     */
    async resendEmail(auth: AuthContext, id: string): Promise<{ deliveryId: string; to: string }> {
      const tenant = tenantWhere(auth);
      const { workflowId, to } = await sequelize.transaction(async (tx) => {
        const delivery = await Delivery.findOne({ where: { id, ...tenant }, transaction: tx });
        if (!delivery) throw notFound('Delivery');
        const session = delivery.checkoutSessionId ? await CheckoutSession.findOne({ where: { id: delivery.checkoutSessionId, ...tenant }, transaction: tx }) : null;
        const order = delivery.manualOrderId ? await ManualOrder.findOne({ where: { id: delivery.manualOrderId, ...tenant }, transaction: tx }) : null;
        const source = session
          ? { key: `checkout_receipt:${session.id}`, to: session.customerEmail, data: await receipts.checkout(tx, tenant, session, links) }
          : order
            ? { key: `manual_order_receipt:${order.id}`, to: order.customerEmail, data: await receipts.manualOrder(tx, tenant, order, links) }
            : null;
        if (!source) throw new Error(`delivery ${delivery.id} belongs to neither a checkout session nor a manual order`);
        const queued = await emails.queue(tx, tenant, { kind: 'checkout_receipt', businessKey: `${source.key}:resend:${newId('eml')}`, to: source.to, data: source.data });
        return { workflowId: queued.workflowId, to: source.to };
      });
      if (workflowId) await startRecordedNow(deps, workflowId);
      return { deliveryId: id, to };
    },

    /**
     * Serves a signed link: the signature (constant-time) and expiry first, then, under the delivery's row lock,
     * the file (its row and its blob: either gone is 404), the limit, and the count. The blob is opened before
     * the count commits, so a download is counted exactly when it is about to stream; a refusal counts nothing.
     * `count: false` (a HEAD request) runs every check and counts nothing.
     */
    async download(token: string, { count = true }: { count?: boolean } = {}): Promise<DownloadFile> {
      const verdict = links.verify(token);
      if (verdict === 'invalid') throw refused('invalid_signature', 'This download link is not valid');
      if (verdict === 'expired') throw refused('expired', 'This download link has expired');
      const opened: { blob?: { body: Readable; size: number } | null } = {};
      try {
        return await sequelize.transaction(async (tx) => {
          const delivery = await Delivery.findOne({ where: { id: verdict.deliveryId, kind: 'download' }, lock: tx.LOCK.UPDATE, transaction: tx });
          // Deleting a file removes its row at once and its blob minutes later: either one gone is 404.
          const file = delivery?.fileId
            ? await ProductFile.findOne({ where: { id: delivery.fileId, productId: delivery.productId, ...tenantWhere(delivery) }, transaction: tx })
            : null;
          if (!delivery || !file) throw notFound('File');
          const used = delivery.downloadCount ?? 0;
          if (delivery.downloadLimit !== null && used >= delivery.downloadLimit) {
            throw refused('download_limit_reached', `This link has been used for all ${delivery.downloadLimit} downloads it allows`);
          }
          opened.blob = await storage.open(file.storageKey);
          if (!opened.blob) throw notFound('File');
          if (count) await delivery.update({ downloadCount: used + 1 }, { transaction: tx });
          return { ...opened.blob, fileName: file.fileName, mimeType: file.mimeType };
        });
      } catch (err) {
        opened.blob?.body.destroy();
        throw err;
      }
    },
  };
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;
