import type { Readable } from 'node:stream';
import { Delivery, ProductFile } from '../../db/models';
import { tenantWhere } from '../../db/tenancy';
import { requireEncryptionKey } from '../../lib/config';
import { AppError, notFound } from '../../lib/errors';
import type { AuthContext } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import { toDeliveryDto, type DeliveryDto } from './dto';
import { createDownloadLinks } from './links';

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

/**
 * Deliveries: the merchant's read-only list and retrieve (secret key), and the buyer's download through a
 * signed link (no key: the link is the credential).
 */
export function createDeliveryService({ sequelize, storage, config }: Pick<ServiceDeps, 'sequelize' | 'storage' | 'config'>) {
  const links = createDownloadLinks({ secret: requireEncryptionKey(config), publicBaseUrl: config.PUBLIC_BASE_URL });

  return {
    /** Every delivery, newest first: document 1 gives this list no pagination. */
    async list(auth: AuthContext): Promise<DeliveryDto[]> {
      const now = Date.now();
      const rows = await Delivery.findAll({ where: tenantWhere(auth), order: [['id', 'DESC']] });
      return rows.map((row) => toDeliveryDto(row, links, now));
    },

    async retrieve(auth: AuthContext, id: string): Promise<DeliveryDto> {
      const row = await Delivery.findOne({ where: { id, ...tenantWhere(auth) } });
      if (!row) throw notFound('Delivery');
      return toDeliveryDto(row, links);
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
