import { z } from 'zod';
import { MANUAL_FULFILLMENT_STATUSES, MANUAL_PAYMENT_METHODS, MANUAL_PAYMENT_STATUSES } from '../../db/models/manual-order';
import { multiLine, singleLine, stringMap } from '../../lib/text';
import { MAX_CART_LINES, MAX_LINE_QUANTITY } from '../checkout/pricing';

/**
 * The write bodies of manual orders: the public manual checkout and the merchant's PATCH, with document 1's
 * bounds and the limits it leaves open (docs/decisions/manual-orders.md).
 */

const emailFormat = z.email();
const id = singleLine({ min: 1, max: 100, trim: false });
const quantity = z.int().min(1).max(MAX_LINE_QUANTITY);
const optionalText = (max: number) => singleLine({ min: 1, max }).optional();

/** A postal address (document 1 leaves its shape open): what a courier needs to deliver a parcel by hand. */
export const ShippingAddressBody = z
  .object({
    name: singleLine({ min: 1, max: 200 }).meta({ description: 'Recipient' }),
    line1: singleLine({ min: 1, max: 200 }),
    line2: optionalText(200),
    city: singleLine({ min: 1, max: 100 }),
    region: optionalText(100).meta({ description: 'Province or state' }),
    postalCode: optionalText(20),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as ID or US')
      .meta({ description: 'ISO 3166-1 alpha-2, upper case' }),
    phone: optionalText(30),
  })
  .strict()
  .meta({ id: 'ShippingAddress' });
export type ShippingAddressBody = z.infer<typeof ShippingAddressBody>;

const OrderItem = z
  .object({ productId: id, variantId: id.nullable().optional(), quantity })
  .strict()
  .meta({ id: 'ManualCheckoutItem' });

/**
 * The buy-now fields with the product named by `productSlug` or `productId` (and `quantity`), or the cart
 * checkout's `items`: exactly one of the three. No `successUrl`/`cancelUrl`: there is no hosted page to leave.
 */
export const ManualCheckoutBody = z
  .object({
    email: singleLine({ min: 1, max: 320 })
      .refine((v) => emailFormat.safeParse(v).success, 'must be an e-mail address')
      .meta({ format: 'email' })
      .meta({ description: 'Where the payment instructions and later updates go' }),
    name: optionalText(200),
    phone: optionalText(30),
    productSlug: singleLine({ min: 1, max: 80, trim: false }).optional().meta({ description: 'Buy one product (or productId)' }),
    productId: id.optional().meta({ description: 'Buy one product (or productSlug)' }),
    variantId: id.nullable().optional(),
    quantity: quantity.optional().meta({ description: 'With productSlug or productId; default 1' }),
    items: z
      .array(OrderItem)
      .min(1)
      .max(MAX_CART_LINES)
      .optional()
      .meta({ description: 'A cart, as in cart checkout: instead of productSlug/productId' }),
    shippingAddress: ShippingAddressBody.optional().meta({ description: 'Required when a physical product is ordered' }),
    couponCode: singleLine({ min: 1, max: 50 }).optional().meta({ description: 'A discount code, checked by the shared validation' }),
    referralCode: singleLine({ min: 1, max: 50 }).optional(),
    paymentMethod: z.enum(MANUAL_PAYMENT_METHODS).default('bank_transfer'),
    metadata: stringMap({ keyMax: 40, maxKeys: 50, value: multiLine({ max: 500 }) })
      .optional()
      .meta({ description: 'String-to-string map (at most 50 keys); forwarded to the deliveries and product.purchased' }),
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
export const UpdateManualOrderBody = z
  .object({
    paymentStatus: z.enum(MANUAL_PAYMENT_STATUSES).optional(),
    fulfillmentStatus: z.enum(MANUAL_FULFILLMENT_STATUSES).optional(),
    trackingCourier: trackingText,
    trackingNumber: trackingText,
    merchantPaymentNote: note,
    merchantShippingNote: note,
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'send at least one field to update')
  .meta({ id: 'UpdateManualOrderBody', minProperties: 1 });
export type UpdateManualOrderBody = z.output<typeof UpdateManualOrderBody>;
