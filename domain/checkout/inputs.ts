import { z } from 'zod';
import { PAYMENT_METHODS } from '../../db/models/checkout-session';
import { CURRENCIES } from '../../db/models/product';
import { emailAddress, multiLine, singleLine, stringMap } from '../../lib/text';

/**
 * What the checkout-session routes accept: document 2's create and refund bodies with their bounds, and the
 * buyer routes' bodies, whose shapes the spec leaves open (docs/decisions/checkout.md, "Sessions API").
 */

// Limits the spec leaves open.
const MAX_DESCRIPTION = 500;
const MAX_URL_LENGTH = 2048;
const MAX_QUANTITY = 10_000;
const MAX_REASON = 500;
/** An attribution cookie value: Meta's `_fbc`/`_fbp` and TikTok's `ttclid`/`_ttp` stay far below this. */
export const MAX_PIXEL_COOKIE = 255;

/** A buyer's e-mail (lib/text.ts): at most 320 characters, the shape of an address, kept as sent (trimmed). */
export const customerEmail = emailAddress();

// z.url would accept (and quietly drop) a line break or tab inside the URL, so the text rule comes first.
const httpUrl = z.url({ protocol: /^https?$/ });
const redirectUrl = singleLine({ min: 1, max: MAX_URL_LENGTH })
  .refine((v) => httpUrl.safeParse(v).success, 'must be an http(s) URL')
  .meta({ format: 'uri' });

const amount = z.int().positive().max(Number.MAX_SAFE_INTEGER);
const paymentMethod = z.enum(PAYMENT_METHODS).meta({ description: '`intl_wallet` is the international wallet provider' });
const id = singleLine({ min: 1, max: 100, trim: false });

/** Metadata as Stripe bounds it, the same map as product metadata: at most 50 keys of 1 to 40, values at most 500. */
const metadata = stringMap({ keyMax: 40, maxKeys: 50, value: multiLine({ max: 500 }) }).meta({
  description: 'String-to-string map surfaced in webhooks; keys 1 to 40 characters, values at most 500, at most 50 keys',
});

export const CreateCheckoutSessionBody = z
  .object({
    amount: amount.meta({ description: 'Smallest-unit total (cents for USD, rupiah for IDR); with productId, a multiple of quantity' }),
    currency: z.enum(CURRENCIES).meta({ description: 'ISO 4217; the currencies the service prices in' }),
    description: singleLine({ min: 1, max: MAX_DESCRIPTION }).meta({ description: 'Buyer-visible' }),
    customerEmail,
    paymentMethods: z
      .array(paymentMethod)
      .max(PAYMENT_METHODS.length)
      .refine((methods) => new Set(methods).size === methods.length, 'each method at most once')
      .optional()
      .meta({ description: 'Allowed methods, in the order the picker shows them; empty or absent: all' }),
    paymentMethod: paymentMethod.optional().meta({ description: 'Forces one method (the picker is skipped); must be among paymentMethods when both are sent' }),
    productId: id.optional().meta({ description: 'The product this payment buys (own, published, not archived): the session gets one line of it and fulfils it' }),
    variantId: id
      .optional()
      .meta({
        description:
          'Only with productId: an active variant of it; omitted: its default variant when it has variants. With the fulfillment module on, a stock-tracked variant’s quantity is reserved, or the create is 409 INSUFFICIENT_STOCK',
      }),
    quantity: z.int().min(1).max(MAX_QUANTITY).optional().meta({ description: 'Only with productId; default 1' }),
    successUrl: redirectUrl.optional(),
    cancelUrl: redirectUrl.optional(),
    expiresAt: z.iso.datetime({ offset: true }).optional().meta({ description: 'In the future and at most 30 days out; default now + 24 hours' }),
    metadata: metadata.optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.paymentMethod && body.paymentMethods?.length && !body.paymentMethods.includes(body.paymentMethod)) {
      ctx.addIssue({ code: 'custom', path: ['paymentMethod'], message: 'must be one of paymentMethods' });
    }
    if (body.productId === undefined) {
      if (body.variantId !== undefined) ctx.addIssue({ code: 'custom', path: ['variantId'], message: 'only allowed with productId' });
      if (body.quantity !== undefined) ctx.addIssue({ code: 'custom', path: ['quantity'], message: 'only allowed with productId' });
    } else if (body.amount % (body.quantity ?? 1) !== 0) {
      ctx.addIssue({ code: 'custom', path: ['amount'], message: 'must be a multiple of quantity (each unit has a whole smallest-unit price)' });
    }
  })
  .meta({ id: 'CreateCheckoutSessionBody' });
export type CreateCheckoutSessionBody = z.infer<typeof CreateCheckoutSessionBody>;

export const RefundCheckoutSessionBody = z
  .object({
    amount: amount.optional().meta({ description: 'Smallest unit; at most what is left unrefunded (the default)' }),
    reason: singleLine({ min: 1, max: MAX_REASON }).optional(),
  })
  .strict()
  .meta({ id: 'RefundCheckoutSessionBody' });
export type RefundCheckoutSessionBody = z.infer<typeof RefundCheckoutSessionBody>;

export const PayCheckoutSessionBody = z
  .object({
    paymentMethod: paymentMethod.optional().meta({ description: "One of the session's paymentMethods; may be left out when it allows exactly one" }),
  })
  .strict()
  .meta({ id: 'PayCheckoutSessionBody' });
export type PayCheckoutSessionBody = z.infer<typeof PayCheckoutSessionBody>;

/** A cookie value as browsers hold it: visible ASCII, no spaces (RFC 6265 allows even less). */
const cookieValue = z
  .string()
  .min(1)
  .max(MAX_PIXEL_COOKIE)
  .regex(/^[\x21-\x7E]+$/, 'must be visible ASCII characters without spaces');

export const PixelCookiesBody = z
  .object({
    clickId: cookieValue.optional().meta({ description: "The ad click's id cookie (Meta `_fbc`, TikTok `ttclid`)" }),
    browserId: cookieValue.optional().meta({ description: "The browser's id cookie (Meta `_fbp`, TikTok `_ttp`)" }),
  })
  .strict()
  .refine((body) => body.clickId !== undefined || body.browserId !== undefined, 'send clickId, browserId or both')
  .meta({ id: 'PixelCookiesBody', minProperties: 1 });
export type PixelCookiesBody = z.infer<typeof PixelCookiesBody>;
