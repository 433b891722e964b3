import { z } from 'zod';
import { MANUAL_FULFILLMENT_STATUSES, MANUAL_PAYMENT_METHODS, MANUAL_PAYMENT_STATUSES } from '../../../db/models/manual-order';
import { CURRENCIES } from '../../../db/models/product';
import { isoTimestamp } from '../../../lib/text';
import { pathId } from '../../openapi';
import { pageQuery } from '../../pagination';

export { UpdateManualOrderBody } from '../../../domain/manual-orders';

/** Document 1, Limits: manual orders page by 25. */
export const MANUAL_ORDER_PAGE_SIZE = 25;

export const ListManualOrdersQuery = pageQuery(MANUAL_ORDER_PAGE_SIZE).extend({
  paymentStatus: z.enum(MANUAL_PAYMENT_STATUSES).optional(),
  fulfillmentStatus: z.enum(MANUAL_FULFILLMENT_STATUSES).optional(),
});

export const ManualOrderIdParams = z.object({ id: pathId });

const smallest = (description: string) => z.int().meta({ description: `${description}, smallest currency unit` });

export const ManualOrderLine = z
  .object({
    lineKey: z.string().meta({ description: '`1`, `2`, … in the order the buyer listed the items' }),
    productId: z.string(),
    productName: z.string().meta({ description: 'Snapshot at placement' }),
    variantId: z.string().nullable(),
    variantName: z.string().nullable(),
    quantity: z.int(),
    unitAmount: smallest('Catalogue price at placement'),
    amount: smallest('unitAmount × quantity'),
  })
  .meta({ id: 'ManualOrderLine' });

/** The address as the manual checkout stored it (its ShippingAddress body, trimmed, without blank fields). */
const ShippingAddress = z
  .object({
    name: z.string(),
    line1: z.string(),
    line2: z.string().optional(),
    city: z.string(),
    region: z.string().optional(),
    postalCode: z.string().optional(),
    country: z.string().meta({ description: 'ISO 3166-1 alpha-2, upper case' }),
    phone: z.string().optional(),
  })
  .meta({ id: 'ManualOrderShippingAddress' });

const listFields = {
  id: z.string().meta({ example: 'mord_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
  accountId: z.string(),
  orderNumber: z.string().meta({ description: '`<MERCHANT-SLUG-PREFIX>-<seq>`, e.g. `WARUNG-0042`', example: 'WARUNG-0042' }),
  productId: z.string().meta({ description: 'The first line’s product (snapshot at placement)' }),
  productName: z.string(),
  variantId: z.string().nullable(),
  variantName: z.string().nullable(),
  quantity: z.int().meta({ description: 'The first line’s quantity' }),
  lines: z.array(ManualOrderLine).meta({ description: 'Every line; one for a buy-now order' }),
  subtotal: smallest('Sum of the lines'),
  discountCode: z.string().nullable(),
  discountAmount: smallest('Discount'),
  discountApplied: z.boolean().nullable().meta({ description: 'Set at confirmation: false when the code had run out of uses (the buyer keeps the price quoted)' }),
  amount: smallest('Total to pay: subtotal − discount'),
  currency: z.enum(CURRENCIES),
  paymentStatus: z.enum(MANUAL_PAYMENT_STATUSES),
  fulfillmentStatus: z.enum(MANUAL_FULFILLMENT_STATUSES),
  customerName: z.string().nullable(),
  customerEmail: z.string().nullable(),
  paymentMethod: z.enum(MANUAL_PAYMENT_METHODS).nullable(),
  trackingCourier: z.string().nullable(),
  trackingNumber: z.string().nullable(),
  placedAt: isoTimestamp,
  paymentConfirmedAt: isoTimestamp.nullable(),
  canceledAt: isoTimestamp.nullable(),
  shippedAt: isoTimestamp.nullable(),
  deliveredAt: isoTimestamp.nullable(),
  metadata: z.record(z.string(), z.string()),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
};

/** A list row: no merchant-only fields (customerPhone, shippingAddress, referralCode, the two notes). */
export const ManualOrderSummary = z.object(listFields).meta({ id: 'ManualOrderSummary' });

export const ManualOrder = z
  .object({
    ...listFields,
    customerPhone: z.string().nullable(),
    shippingAddress: ShippingAddress.nullable(),
    referralCode: z.string().nullable(),
    merchantPaymentNote: z.string().nullable(),
    merchantShippingNote: z.string().nullable(),
  })
  .meta({ id: 'ManualOrder' });
