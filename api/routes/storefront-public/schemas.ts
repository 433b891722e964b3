import { z } from 'zod';
import { Product } from '../../schemas/products';

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

export const BlogPostParams = z.object({ merchantSlug: slug, postSlug: z.string().min(1).max(80) });

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
