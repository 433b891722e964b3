import { Product } from '../../db/models';
import { buildXml } from '../../lib/xml';
import type { AuthContext } from '../auth-context';
import { pageUrl } from '../products';
import type { ServiceDeps } from '../service-deps';
import { publishedPosts } from './blog-posts';
import { resolveStorefront } from './merchant';
import { latest, storefrontUrls } from './urls';

/** The sitemaps.org limit of one sitemap file, shared by products and posts (the landing and blog pages aside). */
export const SITEMAP_URL_LIMIT = 50_000;

/**
 * A sitemaps.org `urlset` of the storefront's public pages: the landing page, the blog index (when there are
 * posts), every published product page and every visible blog post, each with its lastmod (W3C datetime).
 */
export function createSitemapService({ sequelize, config }: Pick<ServiceDeps, 'sequelize' | 'config'>) {
  return {
    async sitemap(slugOrHost: string, auth: AuthContext | undefined): Promise<string> {
      const { merchant, tenant } = await resolveStorefront(sequelize, slugOrHost, auth);
      const urls = storefrontUrls(config.PUBLIC_BASE_URL, merchant);
      const products = await Product.findAll({
        where: { ...tenant, published: true, archived: false },
        attributes: ['slug', 'updatedAt'],
        order: [['id', 'DESC']],
        limit: SITEMAP_URL_LIMIT,
        raw: true,
      });
      const posts = await publishedPosts(tenant, SITEMAP_URL_LIMIT - products.length);
      const entries = [
        ...products.map((p) => ({ loc: pageUrl({ workspaceSlug: merchant.slug, baseUrl: config.PUBLIC_BASE_URL }, p.slug)!, lastmod: p.updatedAt })),
        // A post appears at its publication time when that is later than its last edit (a scheduled post).
        ...posts.map((p) => ({ loc: urls.post(p.slug), lastmod: latest(p.updatedAt, [p.publishedAt]) })),
      ];
      const [newestPost, ...olderPosts] = entries.slice(products.length).map((e) => e.lastmod);
      const blog = newestPost ? [{ loc: urls.blog, lastmod: latest(newestPost, olderPosts) }] : [];
      // The landing page shows the branding and the products: it changes when either does.
      const landing = { loc: urls.landing, lastmod: latest(merchant.updatedAt, products.map((p) => p.updatedAt)) };
      return buildXml({
        urlset: {
          '@_xmlns': 'http://www.sitemaps.org/schemas/sitemap/0.9',
          url: [landing, ...blog, ...entries].map((e) => ({ loc: e.loc, lastmod: e.lastmod.toISOString() })),
        },
      });
    },
  };
}

export type SitemapService = ReturnType<typeof createSitemapService>;
