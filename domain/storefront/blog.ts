import { BlogPost } from '../../db/models';
import { notFound } from '../../lib/errors';
import { renderMarkdown } from '../../lib/markdown';
import type { AuthContext } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import { excerptOf, publishedPosts, visible, type PublishedPostRow } from './blog-posts';
import { buildBlogRss } from './blog-rss';
import { resolveStorefront } from './merchant';
import { storefrontUrls, type StorefrontUrls } from './urls';

/** The blog index shows the newest posts, like the landing page shows the newest products. */
export const BLOG_INDEX_LIMIT = 200;
export const RSS_ITEM_LIMIT = 50;
function toPostSummary(post: PublishedPostRow, urls: StorefrontUrls) {
  return {
    id: post.id,
    title: post.title,
    slug: post.slug,
    excerpt: excerptOf(post),
    coverImage: post.coverImage,
    publishedAt: post.publishedAt.toISOString(),
    updatedAt: post.updatedAt.toISOString(),
    url: urls.post(post.slug),
  };
}

/** The storefront's blog: index, one post with its Markdown rendered to sanitised HTML, and the RSS feed. */
export function createPublicBlogService({ sequelize, config }: Pick<ServiceDeps, 'sequelize' | 'config'>) {
  async function storefront(slugOrHost: string, auth: AuthContext | undefined) {
    const { merchant, tenant } = await resolveStorefront(sequelize, slugOrHost, auth);
    return { merchant, tenant, urls: storefrontUrls(config.PUBLIC_BASE_URL, merchant) };
  }

  return {
    async index(slugOrHost: string, auth: AuthContext | undefined) {
      const { tenant, urls } = await storefront(slugOrHost, auth);
      const posts = await publishedPosts(tenant, BLOG_INDEX_LIMIT);
      return { posts: posts.map((post) => toPostSummary(post, urls)), rssUrl: urls.rss };
    },

    /** One published post by its slug; a draft, a scheduled post or an unknown slug is 404. */
    async post(slugOrHost: string, postSlug: string, auth: AuthContext | undefined) {
      const { tenant, urls } = await storefront(slugOrHost, auth);
      const row = await BlogPost.findOne({ where: { ...visible(tenant), slug: postSlug }, raw: true });
      if (!row) throw notFound('Blog post');
      const post = { ...row, publishedAt: row.publishedAt!, bodyStart: row.body };
      return { ...toPostSummary(post, urls), html: renderMarkdown(row.body) };
    },

    /** RSS 2.0 of the newest posts. */
    async rss(slugOrHost: string, auth: AuthContext | undefined): Promise<string> {
      const { merchant, tenant, urls } = await storefront(slugOrHost, auth);
      return buildBlogRss(merchant, urls, await publishedPosts(tenant, RSS_ITEM_LIMIT));
    },
  };
}

export type PublicBlogService = ReturnType<typeof createPublicBlogService>;
