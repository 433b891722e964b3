import { z } from 'zod';
import { Product } from '../../schemas/products';

export { CaptureReferralBody } from '../../../domain/referrals/inputs';
export { TrackBody, UnsubscribeQuery } from '../../../domain/storefront/activity-inputs';

const slug = z.string().min(1).max(253);
export const MerchantParams = z.object({ merchantSlug: slug });
export const ProductPageParams = z.object({ merchantSlug: slug, productSlug: z.string().min(1).max(80) });
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
export const PublicProduct = Product.meta({ id: 'PublicProduct' });

export const Landing = z.object({ merchant: Merchant, products: z.array(PublicProduct), pixels: Pixels }).meta({ id: 'StorefrontLanding' });

export const ProductPage = PublicProduct.extend({
  variants: z.array(z.unknown()).meta({ description: 'Empty until the fulfilment module adds variants' }),
  inventory: z.null().meta({ description: 'Stock state once the fulfilment module tracks it; null until then' }),
  crossSell: z.array(PublicProduct).meta({ description: 'Other published products sharing a tag, most shared tags first (at most 4)' }),
}).meta({ id: 'StorefrontProductPage' });

export const ReferralParams = z.object({ merchantSlug: slug, code: z.string().min(1).max(50) });

export const ReferralTarget = z
  .object({ code: z.string(), productSlug: z.string().nullable(), targetUrl: z.string().meta({ description: 'The product page, or the landing page' }) })
  .meta({ id: 'ReferralTarget' });

export const ReferralCapture = z
  .object({ code: z.string(), visitorId: z.string(), capturedAt: z.string(), expiresAt: z.string().meta({ description: 'End of the 30-day attribution window' }) })
  .meta({ id: 'ReferralCapture' });

export const TrackAccepted = z.object({ accepted: z.literal(true), id: z.string() }).meta({ id: 'TrackAccepted' });

export const Unsubscribed = z.object({ unsubscribed: z.literal(true), email: z.string() }).meta({ id: 'Unsubscribed' });
