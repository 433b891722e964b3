import { z } from 'zod';
import type { ShippingAddress } from '../../db/models';
import { emailAddress, multiLine, singleLine, stringMap } from '../../lib/text';
import { clearable, optionalText, webUrl } from '../credibility';
import { METADATA_MAX_KEYS, METADATA_VALUE_MAX } from '../products';
import { MAX_CART_LINES, MAX_LINE_QUANTITY } from '../pricing';

/**
 * What a buyer's storefront checkout (buy-now, cart) may carry: document 1's request fields with the bounds it
 * leaves open (docs/decisions/storefront-checkout.md, Request fields). Unknown fields are refused.
 */

export const buyerEmail = emailAddress().meta({ description: 'The buyer’s e-mail, where receipts, download links and licence keys go; at most 320 characters' });

/** Digits with the usual separators and an optional leading +, as people write numbers. */
const phone = singleLine({ min: 1, max: 30 })
  .refine((v) => /^\+?[0-9][0-9 ().-]*$/.test(v), 'must be a phone number: digits, spaces and + ( ) - .')
  .meta({ description: 'Digits, spaces and + ( ) - .; at most 30 characters' });

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** An ISO 3166-1 alpha-2 country code (upper-cased), one the runtime's region data knows. */
const country = z
  .string()
  .trim()
  .toUpperCase()
  .refine((v) => /^[A-Z]{2}$/.test(v) && v !== 'ZZ' && regionNames.of(v) !== v, 'must be an ISO 3166-1 alpha-2 country code such as ID or US')
  .meta({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2, e.g. ID, US; stored upper-cased', example: 'ID' });

export const ShippingAddressBody = z
  .object({
    name: singleLine({ min: 1, max: 200 }).meta({ description: 'Recipient' }),
    line1: singleLine({ min: 1, max: 200 }),
    line2: optionalText(200).optional(),
    city: singleLine({ min: 1, max: 100 }),
    region: optionalText(100).optional().meta({ description: 'Province or state' }),
    postalCode: clearable(singleLine({ min: 1, max: 20 }).refine((v) => /^[A-Za-z0-9 -]+$/.test(v), 'must be letters, digits, spaces or -')).optional(),
    country,
    phone: clearable(phone).optional().meta({ description: 'For the courier' }),
  })
  .strict()
  .meta({ id: 'ShippingAddress' });
export type ShippingAddressBody = z.infer<typeof ShippingAddressBody>;

/** The address as stored on the session: the fields given, trimmed, without the empty ones. */
export function toShippingAddress(address: ShippingAddressBody): ShippingAddress {
  return Object.fromEntries(Object.entries(address).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== ''));
}

/** Product metadata's bounds, which are Stripe's: at most 50 keys of at most 40 characters, values at most 500. */
const metadata = stringMap({ keyMax: 40, maxKeys: METADATA_MAX_KEYS, value: multiLine({ max: METADATA_VALUE_MAX }) }).meta({
  description: 'String-to-string map stored on the session and passed into its events (checkout.completed, product.purchased); keys 1 to 40 characters, values at most 500, at most 50 keys',
});

const variantId = singleLine({ min: 1, max: 100, trim: false })
  .nullable()
  .optional()
  .meta({
    description:
      'An active variant of the product (priced at price + priceDelta); omitted or null: the product’s default variant when it has variants. With the fulfillment module on, a stock-tracked variant’s quantity is reserved, or the checkout is 409 INSUFFICIENT_STOCK',
  });

const quantity = z.int().min(1).max(MAX_LINE_QUANTITY);

/** Referral codes are letters, digits, `-` and `_` (as the referral links that issue them). */
const referralCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{1,50}$/, 'must be 1 to 50 letters, digits, - or _');

const common = {
  email: buyerEmail,
  name: optionalText(255).optional().meta({ description: 'The buyer’s name, 1 to 255 characters' }),
  phone: clearable(phone).optional(),
  shippingAddress: ShippingAddressBody.optional().meta({ description: 'Required when a product is physical' }),
  couponCode: clearable(singleLine({ min: 1, max: 50 }))
    .optional()
    .meta({ description: 'A discount code (case-insensitive); one that does not apply refuses the checkout with its reason' }),
  referralCode: clearable(referralCode).optional().meta({ description: 'Stored on the session; the referral counts its conversion when the checkout completes' }),
  successUrl: webUrl.optional().meta({ description: 'Where the hosted page sends the buyer after payment' }),
  cancelUrl: webUrl.optional().meta({ description: 'Where the hosted page sends a buyer who gives up' }),
  metadata: metadata.optional(),
};

export const BuyNowBody = z
  .object({
    ...common,
    variantId,
    quantity: quantity.optional().meta({ description: `Default 1; at most ${MAX_LINE_QUANTITY}` }),
  })
  .strict()
  .meta({ id: 'StorefrontBuyNowBody' });
export type BuyNowBody = z.infer<typeof BuyNowBody>;

export const CartCheckoutBody = z
  .object({
    ...common,
    items: z
      .array(z.object({ productId: singleLine({ min: 1, max: 100, trim: false }), variantId, quantity }).strict().meta({ id: 'StorefrontCartItem' }))
      .min(1)
      .max(MAX_CART_LINES)
      .meta({ description: `1 to ${MAX_CART_LINES} lines, one per product; each line is priced from the catalogue` }),
  })
  .strict()
  .meta({ id: 'StorefrontCartCheckoutBody' });
export type CartCheckoutBody = z.infer<typeof CartCheckoutBody>;
