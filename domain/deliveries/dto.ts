import type { Delivery } from '../../db/models';
import type { DownloadLinks } from './links';

/**
 * The merchant's delivery shape (document 1's Delivery resource plus `accountId`). A download's link is signed
 * anew on every read (document 1, States: "Delivery URL … re-signed"), so each answer carries a link valid for
 * the full seven days from now.
 */
export function toDeliveryDto(row: Delivery, links: DownloadLinks, now = Date.now()) {
  const link = row.kind === 'download' ? links.sign(row.id, now) : null;
  return {
    id: row.id,
    accountId: row.accountId,
    productId: row.productId,
    customerId: row.customerId,
    checkoutSessionId: row.checkoutSessionId,
    kind: row.kind,
    downloadUrl: link?.url ?? null,
    downloadExpiresAt: link?.expiresAt.toISOString() ?? null,
    downloadCount: row.downloadCount,
    downloadLimit: row.downloadLimit,
    licenseKey: row.licenseKey,
    shipmentId: row.shipmentId,
    deliveredAt: row.deliveredAt.toISOString(),
    metadata: row.metadata,
  };
}

export type DeliveryDto = ReturnType<typeof toDeliveryDto>;
