import { z } from 'zod';
import { Product, ProductFile } from '../../schemas/products';
import { DISCOUNT_TYPES } from '../../../db/models/discount-code';
import { CURRENCIES } from '../../../db/models/product';
import { MAX_CART_LINES, MAX_LINE_QUANTITY } from '../../../domain/checkout/pricing';
import { DISCOUNT_REFUSALS } from '../../../domain/discounts/validate';
import { singleLine } from '../../../lib/text';

export { BuyNowBody, CartCheckoutBody } from '../../../domain/checkout/storefront-inputs';
export { CaptureReferralBody } from '../../../domain/referrals/inputs';
export { TrackBody, UnsubscribeQuery } from '../../../domain/storefront/activity-inputs';

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
    available: z.int().nullable().meta({ description: 'Summed over the active warehouses; null while the fulfilment module is off' }),
  })
  .meta({ id: 'PublicVariant' });

export const ProductPage = PublicProduct.extend({
  variants: z.array(PublicVariant).meta({ description: 'Active variants, the default first; empty for a product without variants' }),
  inventory: z
    .object({ available: z.int().meta({ description: 'Summed over the variants' }), inStock: z.boolean() })
    .nullable()
    .meta({ description: 'Stock state while the fulfilment module is on and the product has variants (only variants are stock-tracked); else null' }),
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
