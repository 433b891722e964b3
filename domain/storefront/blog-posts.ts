import { col, fn, Op } from 'sequelize';
import { BlogPost } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { markdownToText, truncateText } from '../../lib/markdown';

// The storefront's reads of blog posts, shared by the blog, its RSS feed and the sitemap.

/** A derived excerpt: the body's first words, at most this many characters. */
export const DERIVED_EXCERPT_LENGTH = 280;
/** Enough of the body to derive an excerpt from without reading whole posts for the index. */
const BODY_START_LENGTH = 2000;

export interface PublishedPostRow {
  id: string;
  title: string;
  slug: string;
  excerpt: string | null;
  coverImage: string | null;
  publishedAt: Date;
  updatedAt: Date;
  bodyStart: string;
}

/** Published posts whose publication time has come: a future publishedAt schedules a post. */
export const visible = (tenant: Tenant) => ({ ...tenant, published: true, publishedAt: { [Op.lte]: fn('now') } });

/** The visible posts, newest first; only the start of each body is read. */
export async function publishedPosts(tenant: Tenant, limit: number): Promise<PublishedPostRow[]> {
  const rows = await BlogPost.findAll({
    where: visible(tenant),
    attributes: ['id', 'title', 'slug', 'excerpt', 'coverImage', 'publishedAt', 'updatedAt', [fn('left', col('body'), BODY_START_LENGTH), 'bodyStart']],
    order: [
      ['publishedAt', 'DESC'],
      ['createdAt', 'DESC'],
      ['id', 'DESC'],
    ],
    limit,
    raw: true,
  });
  return rows as unknown as PublishedPostRow[];
}

/** The merchant's excerpt, or the body's first words when it wrote none. */
export const excerptOf = (post: Pick<PublishedPostRow, 'excerpt' | 'bodyStart'>): string =>
  post.excerpt ?? truncateText(markdownToText(post.bodyStart), DERIVED_EXCERPT_LENGTH);

