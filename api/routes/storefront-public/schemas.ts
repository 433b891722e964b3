import { z } from 'zod';
import { Product, ProductFile } from '../../schemas/products';
import { CHECKOUT_STATUSES } from '../../../db/models/checkout-session';
import { ENVIRONMENTS } from '../../../db/models/common';
import { DELIVERY_KINDS } from '../../../db/models/delivery';
import { DISCOUNT_TYPES } from '../../../db/models/discount-code';
import { LICENSE_STATUSES } from '../../../db/models/license';
import { MANUAL_FULFILLMENT_STATUSES, MANUAL_PAYMENT_STATUSES } from '../../../db/models/manual-order';
import { CURRENCIES } from '../../../db/models/product';
import { MAX_CART_LINES, MAX_LINE_QUANTITY } from '../../../domain/pricing';
import { DISCOUNT_REFUSALS } from '../../../domain/discounts';
import { singleLine } from '../../../lib/text';
import { pathId, Timestamp } from '../../openapi';

export { BuyNowBody, CartCheckoutBody } from '../../../domain/checkout';
export { CaptureReferralBody } from '../../../domain/referrals';
export { TrackBody, UnsubscribeQuery } from '../../../domain/storefront';

const slug = singleLine({ min: 1, max: 253, trim: false });
const pageSlug = singleLine({ min: 1, max: 80, trim: false });
export const MerchantParams = z.object({ merchantSlug: slug });
export const ProductPageParams = z.object({ merchantSlug: slug, productSlug: pageSlug });
export const ResolveParams = z.object({ slug });

export const Merchant = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    brandColor: z.string().nullable(),
    brandLogo: z.string().nullable(),
    brandBanner: z.string().nullable(),
    description: z.string().nullable(),
  })
  .meta({ id: 'StorefrontMerchant' });

export const Pixels = z
  .object({ metaPixelId: z.string().nullable(), googleTagId: z.string().nullable(), tiktokPixelId: z.string().nullable() })
  .meta({ id: 'StorefrontPixels' });

/** The merchant's product shape without what a buyer must not see (files' storageKey, the workspace id, private metadata). */
export const PublicProduct = Product.omit({ accountId: true })
  .extend({ files: z.array(ProductFile.omit({ accountId: true, storageKey: true })).meta({ description: 'Digital products only; empty for other types' }) })
  .meta({ id: 'PublicProduct' });

export const PublicDiscountCode = z
  .object({
    code: z.string(),
    description: z.string().nullable(),
    type: z.enum(DISCOUNT_TYPES),
    value: z.int(),
    currency: z.enum(CURRENCIES),
    scope: z.enum(['cart', 'products', 'tags']),
    productIds: z.array(z.string()).nullable(),
    tagFilter: z.array(z.string()).nullable(),
    minPurchaseAmount: z.int().nullable(),
    startsAt: z.string().nullable(),
    expiresAt: z.string().nullable(),
  })
  .meta({ id: 'PublicDiscountCode' });

export const Landing = z
  .object({ merchant: Merchant, products: z.array(PublicProduct), discountCodes: z.array(PublicDiscountCode), pixels: Pixels })
  .meta({ id: 'StorefrontLanding' });

export const PublicVariant = z
  .object({
    id: z.string(),
    productId: z.string(),
    sku: z.string().nullable(),
    name: z.string(),
    priceDelta: z.int(),
    price: z.int().meta({ description: 'The product price with priceDelta resolved, whole units' }),
    isDefault: z.boolean(),
    available: z.int().nullable().meta({ description: 'Summed over the active warehouses; null while the fulfillment module is off' }),
  })
  .meta({ id: 'PublicVariant' });

export const ProductPage = PublicProduct.extend({
  variants: z.array(PublicVariant).meta({ description: 'Active variants, the default first; empty for a product without variants' }),
  inventory: z
    .object({ available: z.int().meta({ description: 'Summed over the variants' }), inStock: z.boolean() })
    .nullable()
    .meta({ description: 'Stock state while the fulfillment module is on and the product has variants (only variants are stock-tracked); else null' }),
  crossSell: z.array(PublicProduct).meta({ description: 'Other published products sharing a tag, most shared tags first (at most 4)' }),
}).meta({ id: 'StorefrontProductPage' });

export const ReferralParams = z.object({ merchantSlug: slug, code: singleLine({ min: 1, max: 50, trim: false }) });

export const ReferralTarget = z
  .object({ code: z.string(), productSlug: z.string().nullable(), targetUrl: z.string().meta({ description: 'The product page, or the landing page' }) })
  .meta({ id: 'ReferralTarget' });

export const ReferralCapture = z
  .object({ code: z.string(), visitorId: z.string(), capturedAt: z.string(), expiresAt: z.string().meta({ description: 'End of the 30-day attribution window' }) })
  .meta({ id: 'ReferralCapture' });

export const TrackAccepted = z.object({ accepted: z.literal(true), id: z.string() }).meta({ id: 'TrackAccepted' });

export const Unsubscribed = z.object({ unsubscribed: z.literal(true), email: z.string() }).meta({ id: 'Unsubscribed' });

export const ValidateDiscountBody = z
  .object({
    code: singleLine({ min: 1, max: 50 }).meta({ description: 'Case-insensitive' }),
    merchantSlug: slug,
    items: z
      .array(
        z
          .object({
            productId: singleLine({ min: 1, max: 100, trim: false }),
            variantId: singleLine({ min: 1, max: 100, trim: false })
              .nullable()
              .optional()
              .meta({ description: 'An active variant of the product (priced at price + priceDelta); omitted or null: its default variant when it has variants' }),
            quantity: z.int().min(1).max(MAX_LINE_QUANTITY),
          })
          .strict(),
      )
      .min(1)
      .max(MAX_CART_LINES),
    subtotalAmount: z
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .meta({ description: 'Informative only: the subtotal is computed from catalogue prices, smallest unit' }),
  })
  .strict()
  .meta({ id: 'ValidateDiscountBody' });

export const DiscountQuote = z
  .union([
    z.object({
      valid: z.literal(true),
      discountId: z.string(),
      code: z.string().meta({ description: 'As the merchant spelled it' }),
      type: z.enum(DISCOUNT_TYPES),
      value: z.int(),
      currency: z.enum(CURRENCIES),
      subtotalAmount: z.int().meta({ description: 'The cart subtotal from catalogue prices, smallest unit' }),
      discountAmount: z.int().meta({ description: 'Smallest unit; off the eligible lines, or off shipping when appliesToShipping' }),
      appliesToShipping: z.boolean(),
    }),
    z.object({
      valid: z.literal(false),
      code: z.string(),
      reason: z.enum(DISCOUNT_REFUSALS).meta({ description: 'The first failing check, in the documented order' }),
    }),
  ])
  .meta({ id: 'DiscountQuote' });

export const CheckoutCreated = z
  .object({
    checkoutSessionId: z.string().meta({ description: 'cs_ id' }),
    hostedUrl: z.string().meta({ description: 'The hosted checkout page: redirect the buyer there' }),
  })
  .meta({ id: 'StorefrontCheckoutCreated' });

export const BlogPostParams = z.object({ merchantSlug: slug, postSlug: pageSlug });

const postSummaryShape = {
  id: z.string(),
  title: z.string(),
  slug: z.string(),
  excerpt: z.string().meta({ description: 'The merchant’s excerpt, or the body’s first words (at most 280 characters)' }),
  coverImage: z.string().nullable(),
  publishedAt: z.string(),
  updatedAt: z.string(),
  url: z.string().meta({ description: 'PUBLIC_BASE_URL/<workspace slug>/blog/<post slug>' }),
};

export const BlogIndex = z
  .object({
    posts: z.array(z.object(postSummaryShape).meta({ id: 'StorefrontBlogPostSummary' })).meta({ description: 'Published posts, newest first (at most 200)' }),
    rssUrl: z.string(),
  })
  .meta({ id: 'StorefrontBlogIndex' });

export const BlogPostPage = z
  .object({ ...postSummaryShape, html: z.string().meta({ description: 'The Markdown body rendered to sanitised HTML' }) })
  .meta({ id: 'StorefrontBlogPost' });

export const OrderPageParams = z.object({
  deliveryId: pathId.meta({ description: 'The `del_` id of the buyer’s delivery (its only credential); any other value (up to 100 characters) is 404', example: 'del_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
});

const smallest = (description: string) => z.int().meta({ description: `${description}, smallest currency unit` });

export const PublicOrder = z
  .object({
    id: z.string().meta({ description: 'The delivery id', example: 'del_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    environment: z.enum(ENVIRONMENTS).meta({ description: '`test` orders took no real money: a page should say so' }),
    kind: z.enum(DELIVERY_KINDS),
    deliveredAt: Timestamp,
    product: z.object({
      id: z.string(),
      name: z.string().meta({ description: 'As bought (the order line’s snapshot)' }),
      variantName: z.string().nullable(),
      thumbnail: z.string().nullable().meta({ description: 'The product’s current thumbnail, http(s) only' }),
    }),
    line: z
      .object({ quantity: z.int(), unitAmount: smallest('Price'), amount: smallest('unitAmount × quantity'), currency: z.enum(CURRENCIES) })
      .meta({ description: 'The order line this delivery fulfils' }),
    download: z
      .object({
        url: z.string().nullable().meta({ description: 'Signed anew on every read, valid 7 days; null once the merchant deleted the file' }),
        expiresAt: Timestamp.nullable().meta({ description: 'When this signing of `url` stops working' }),
        fileName: z.string().nullable(),
        downloadCount: z.int(),
        downloadLimit: z.int().nullable().meta({ description: 'null means unlimited' }),
        limitReached: z.boolean().meta({ description: 'The link then answers 403 FORBIDDEN' }),
      })
      .nullable()
      .meta({ description: 'Kind `download` only' }),
    license: z
      .object({
        key: z.string(),
        status: z.enum(LICENSE_STATUSES).nullable().meta({ description: 'null when the key has no licence record' }),
        expiresAt: Timestamp.nullable(),
      })
      .nullable()
      .meta({ description: 'Kind `license`, or a `download` of licensed software' }),
    shipment: z.object({ id: z.string().meta({ description: 'The `shp_` shipment' }) }).nullable(),
    order: z.object({
      source: z.enum(['checkout', 'manual_order']),
      orderNumber: z.string().nullable().meta({ description: 'A manual order’s number; null for a checkout' }),
      status: z
        .enum([...CHECKOUT_STATUSES, ...MANUAL_PAYMENT_STATUSES])
        .meta({ description: 'A checkout session’s status as its buyer sees it, or a manual order’s `paymentStatus`' }),
      fulfillmentStatus: z.enum(MANUAL_FULFILLMENT_STATUSES).nullable().meta({ description: 'Manual orders only' }),
      subtotal: smallest('The order’s lines before its discount'),
      discount: z.object({ code: z.string(), amount: smallest('What the code took off the order') }).nullable(),
      amount: smallest('Order total'),
      currency: z.enum(CURRENCIES),
      lineCount: z.int().meta({ description: 'Lines in the order; each has its own delivery and page' }),
      customerEmailMasked: z.string().meta({ example: 'b***@example.com', description: 'The receipt address, first character only' }),
      placedAt: Timestamp,
      paidAt: Timestamp.nullable().meta({ description: 'When the payment was received (a session’s completion, a manual order’s confirmation)' }),
      trackingCourier: z.string().nullable().meta({ description: 'Manual orders the merchant ships by hand' }),
      trackingNumber: z.string().nullable(),
    }),
    merchant: z.object({
      name: z.string(),
      slug: z.string().nullable(),
      brandColor: z.string().nullable().meta({ description: '`#rrggbb` or null' }),
      brandLogo: z.string().nullable().meta({ description: 'http(s) or null' }),
    }),
  })
  .meta({ id: 'PublicOrder', description: 'The buyer’s order page: never the workspace id, metadata, ids of the session or order, or the buyer’s details' });
