import { z } from 'zod';
import { patchBody } from '../../lib/patch-body';
import { MANUAL_FULFILLMENT_STATUSES, MANUAL_PAYMENT_METHODS, MANUAL_PAYMENT_STATUSES } from '../../db/models/manual-order';
import { multiLine, singleLine } from '../../lib/text';
import { BuyNowBody, CartCheckoutBody } from '../checkout';

/**
 * The write bodies of manual orders: the public manual checkout and the merchant's PATCH, with document 1's
 * bounds and the limits it leaves open (docs/decisions/manual-orders.md).
 */

/**
 * The buy-now fields (the storefront checkout's own schemas and bounds, docs/decisions/storefront-checkout.md)
 * with the product named by `productSlug` or `productId` (and `quantity`), or the cart checkout's `items`:
 * exactly one of the three. No `successUrl`/`cancelUrl`: there is no hosted page to come back from.
 */
const { successUrl: _successUrl, cancelUrl: _cancelUrl, ...buyNow } = BuyNowBody.shape;
const id = singleLine({ min: 1, max: 100, trim: false });

export const ManualCheckoutBody = z
  .object({
    ...buyNow,
    productSlug: singleLine({ min: 1, max: 80, trim: false }).optional().meta({ description: 'Buy one product (or productId)' }),
    productId: id.optional().meta({ description: 'Buy one product (or productSlug)' }),
    items: CartCheckoutBody.shape.items.optional().meta({ description: 'A cart, as in cart checkout: instead of productSlug/productId' }),
    paymentMethod: z.enum(MANUAL_PAYMENT_METHODS).default('bank_transfer').meta({ description: 'How the buyer means to pay; the instructions cover each' }),
  })
  .strict()
  .superRefine((body, ctx) => {
    const named = (['productSlug', 'productId', 'items'] as const).filter((field) => body[field] !== undefined);
    if (named.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: named.length === 0 ? ['items'] : [named[1]!],
        message: 'name the product with exactly one of productSlug, productId or items',
      });
    }
    if (body.items !== undefined) {
      for (const field of ['variantId', 'quantity'] as const) {
        if (body[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'goes inside each item when items is sent' });
      }
    }
  })
  .meta({ id: 'ManualCheckoutBody' });
export type ManualCheckoutBody = z.output<typeof ManualCheckoutBody>;

// "" (or only whitespace) clears a field like null: both are "no value".
const emptyToNull = (value: string | null) => (value === null || value.trim() === '' ? null : value);
const trackingText = singleLine({ max: 80 }).nullable().transform(emptyToNull).optional();
const note = multiLine({ max: 1000 }).nullable().transform(emptyToNull).optional();

/** Document 1: every field optional; null (or "") clears the text fields. At least one field. */
export const UpdateManualOrderBody = patchBody(
  z
    .object({
      paymentStatus: z.enum(MANUAL_PAYMENT_STATUSES).optional(),
      fulfillmentStatus: z.enum(MANUAL_FULFILLMENT_STATUSES).optional(),
      trackingCourier: trackingText,
      trackingNumber: trackingText,
      merchantPaymentNote: note,
      merchantShippingNote: note,
    })
    .strict(),
  'UpdateManualOrderBody',
);
export type UpdateManualOrderBody = z.output<typeof UpdateManualOrderBody>;
