import type { Attributes } from 'sequelize';
import type { BlogPost } from '../../db/models';

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** The merchant's blog post shape, answered by every /v1/blog-posts route. */
export function toBlogPostDto(row: Attributes<BlogPost>) {
  return {
    id: row.id,
    accountId: row.accountId,
    title: row.title,
    slug: row.slug,
    body: row.body,
    excerpt: row.excerpt,
    coverImage: row.coverImage,
    published: row.published,
    publishedAt: iso(row.publishedAt),
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}

export type BlogPostDto = ReturnType<typeof toBlogPostDto>;
