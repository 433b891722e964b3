import { z } from 'zod';
import { DELIVERY_KINDS } from '../../../db/models/delivery';
import { pathId, Timestamp } from '../../openapi';

export const DeliveryIdParams = z.object({ id: pathId });

/** Any string is a token to verify (a malformed one is refused like a tampered one); the bound keeps it a URL segment. */
export const DownloadParams = z.object({ token: z.string().min(1).max(1000).meta({ description: 'The signed token of a `downloadUrl`' }) });

export const Delivery = z
  .object({
    id: z.string().meta({ example: 'del_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    productId: z.string(),
    customerId: z.string().nullable().meta({ description: 'null for guest checkouts never linked to a customer' }),
    checkoutSessionId: z.string().nullable().meta({ description: 'The `cs_` session the delivery fulfils' }),
    kind: z.enum(DELIVERY_KINDS),
    downloadUrl: z
      .string()
      .nullable()
      .meta({ description: 'Signed link that streams the file; set when kind is `download`. Signed anew on every read, each signing valid 7 days' }),
    downloadExpiresAt: Timestamp.nullable().meta({ description: 'When this signing of `downloadUrl` stops working' }),
    downloadCount: z.int().nullable().meta({ description: 'Downloads served through the link (kind `download`)' }),
    downloadLimit: z.int().nullable().meta({ description: 'Downloads the link allows; null means unlimited' }),
    licenseKey: z.string().nullable().meta({ description: 'Set when kind is `license`' }),
    shipmentId: z.string().nullable().meta({ description: 'The `shp_` shipment; set when kind is `shipment`' }),
    deliveredAt: Timestamp.meta({ description: 'Creation time' }),
    metadata: z.record(z.string(), z.unknown()).meta({ description: 'Forwarded from the checkout session' }),
  })
  .meta({ id: 'Delivery' });
