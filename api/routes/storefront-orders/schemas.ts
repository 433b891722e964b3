import { z } from 'zod';
import { MANUAL_FULFILLMENT_STATUSES, MANUAL_PAYMENT_METHODS, MANUAL_PAYMENT_STATUSES } from '../../../db/models/manual-order';
import { CURRENCIES } from '../../../db/models/product';
import { isoTimestamp, singleLine } from '../../../lib/text';

export { ManualCheckoutBody } from '../../../domain/manual-orders';

const slug = singleLine({ min: 1, max: 253, trim: false });
export const ManualCheckoutParams = z.object({ merchantSlug: slug });
export const OrderTrackerParams = z.object({ merchantSlug: slug, number: singleLine({ min: 1, max: 100, trim: false }).meta({ description: 'The order number, any letter case' }) });
export const OrderTrackerQuery = z.object({
  email: singleLine({ min: 1, max: 320, trim: false })
    .optional()
    .meta({ description: 'The order’s e-mail (any letter case): with it the answer carries the order’s details; without it, or with another one, only its status' }),
});

const smallest = (description: string) => z.int().meta({ description: `${description}, smallest currency unit` });

const BuyerLine = z
  .object({
    productName: z.string(),
    variantName: z.string().nullable(),
    quantity: z.int(),
    unitAmount: smallest('Price'),
    amount: smallest('unitAmount × quantity'),
  })
  .meta({ id: 'ManualOrderBuyerLine' });

export const PaymentInstructions = z
  .object({
    bankName: z.string().nullable(),
    accountNumber: z.string().nullable(),
    accountHolder: z.string().nullable(),
    instructions: z.string().nullable().meta({ description: 'The merchant’s own text (QRIS, WhatsApp, cash on delivery, …); may span lines' }),
    reference: z.string().meta({ description: 'What the buyer quotes with the transfer: the order number' }),
  })
  .meta({ id: 'ManualPaymentInstructions', description: 'The storefront’s manual-payment settings (GET /v1/account/storefront), also e-mailed to the buyer' });

export const PlacedManualOrder = z
  .object({
    id: z.string().meta({ example: 'mord_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    orderNumber: z.string().meta({ example: 'WARUNG-0042' }),
    paymentStatus: z.literal('awaiting_payment'),
    fulfillmentStatus: z.literal('preparing'),
    paymentMethod: z.enum(MANUAL_PAYMENT_METHODS),
    lines: z.array(BuyerLine.extend({ productId: z.string(), variantId: z.string().nullable() }).meta({ id: 'PlacedManualOrderLine' })),
    subtotal: smallest('Sum of the lines'),
    discountCode: z.string().nullable(),
    discountAmount: smallest('Discount'),
    amount: smallest('Total to pay'),
    currency: z.enum(CURRENCIES),
    paymentInstructions: PaymentInstructions,
    placedAt: isoTimestamp,
  })
  .meta({ id: 'PlacedManualOrder' });

export const OrderStatus = z
  .object({
    orderNumber: z.string(),
    paymentStatus: z.enum(MANUAL_PAYMENT_STATUSES),
    fulfillmentStatus: z.enum(MANUAL_FULFILLMENT_STATUSES),
    verified: z.boolean().meta({ description: 'True when `email` matched the order’s e-mail; only then is `order` set' }),
    order: z
      .object({
        customerName: z.string().nullable(),
        lines: z.array(BuyerLine),
        subtotal: smallest('Sum of the lines'),
        discountCode: z.string().nullable(),
        discountAmount: smallest('Discount'),
        amount: smallest('Total'),
        currency: z.enum(CURRENCIES),
        paymentMethod: z.enum(MANUAL_PAYMENT_METHODS).nullable(),
        paymentInstructions: PaymentInstructions.nullable().meta({ description: 'While the order awaits payment' }),
        trackingCourier: z.string().nullable(),
        trackingNumber: z.string().nullable(),
        placedAt: isoTimestamp,
        paymentConfirmedAt: isoTimestamp.nullable(),
        canceledAt: isoTimestamp.nullable(),
        shippedAt: isoTimestamp.nullable(),
        deliveredAt: isoTimestamp.nullable(),
      })
      .nullable(),
  })
  .meta({ id: 'StorefrontOrderStatus' });
