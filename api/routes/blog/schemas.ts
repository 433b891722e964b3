import { z } from 'zod';
import { pathId } from '../../openapi';

export { CreateBlogPostBody, UpdateBlogPostBody } from '../../../domain/blog';

export const BlogPostParams = z.object({ id: pathId });

export const BlogPost = z
  .object({
    id: z.string(),
    accountId: z.string(),
    title: z.string(),
    slug: z.string(),
    body: z.string().meta({ description: 'Markdown' }),
    excerpt: z.string().nullable(),
    coverImage: z.string().nullable(),
    published: z.boolean(),
    publishedAt: z.string().nullable().meta({ description: 'Null until the post is first published (or given a publication time)' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'BlogPost' });

export const SingleBlogPost = z.object({ post: BlogPost });
export const BlogPostList = z.object({ posts: z.array(BlogPost) });
export const Deleted = z.object({ deleted: z.literal(true) });
