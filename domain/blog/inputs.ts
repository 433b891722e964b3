import { z } from 'zod';
import { patchBody } from '../../lib/patch-body';
import { credibilityFields as f } from '../credibility';

/** What a blog post write may carry (docs/decisions/storefront.md, "Blog"). */

export const BLOG_TITLE_MAX = 200;
export const BLOG_BODY_MAX = 50_000;
export const BLOG_EXCERPT_MAX = 500;

const fields = {
  title: f.requiredText(BLOG_TITLE_MAX),
  slug: z
    .string()
    .min(2, 'must be at least 2 characters')
    .max(80, 'must be at most 80 characters')
    .regex(/^[a-z0-9-]+$/, 'only a-z, 0-9 and hyphens')
    .meta({ description: 'Derived from the title when omitted on create; unique per workspace and environment' }),
  body: f.longText(BLOG_BODY_MAX).meta({ description: 'Markdown, kept exactly as sent; the storefront renders it to sanitised HTML. Default ""' }),
  excerpt: f.clearable(f.requiredLongText(BLOG_EXCERPT_MAX)).meta({ description: 'Plain text; "" or null clears it (the storefront then derives one from the body)' }),
  coverImage: f.webUrl.nullable().meta({ description: 'http(s) URL; null clears it' }),
  published: z.boolean().meta({ description: 'Default false' }),
  publishedAt: f.isoDate.meta({
    example: '2026-11-27T09:00:00Z',
    description: 'ISO 8601; set to the current time when the post is first published without one. A future time schedules the post.',
  }),
};

/** Every field but the title is optional on both writes; the title is required on create only. */
const optionalFields = {
  slug: fields.slug.optional(),
  body: fields.body.optional(),
  excerpt: fields.excerpt.optional(),
  coverImage: fields.coverImage.optional(),
  published: fields.published.optional(),
  publishedAt: fields.publishedAt.optional(),
};

export const CreateBlogPostBody = z
  .object({ title: fields.title, ...optionalFields })
  .strict()
  .meta({ id: 'CreateBlogPostBody' });
export type CreateBlogPostBody = z.output<typeof CreateBlogPostBody>;

export const UpdateBlogPostBody = patchBody(
  z
    .object({ title: fields.title.optional(), ...optionalFields })
    .strict(),
  'UpdateBlogPostBody',
);
export type UpdateBlogPostBody = z.output<typeof UpdateBlogPostBody>;
