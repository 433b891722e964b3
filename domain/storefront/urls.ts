import type { Merchant } from './merchant';

/**
 * Where a merchant's storefront lives: its pages under PUBLIC_BASE_URL/<slug> (the same base as a product's
 * pageUrl), and the public API documents (feeds) under PUBLIC_BASE_URL/api.
 */
export function storefrontUrls(baseUrl: string, merchant: Pick<Merchant, 'slug'>) {
  const site = `${baseUrl}/${merchant.slug}`;
  const api = `${baseUrl}/api/v1/storefront/public/${merchant.slug}`;
  return {
    landing: site,
    blog: `${site}/blog`,
    post: (postSlug: string) => `${site}/blog/${postSlug}`,
    rss: `${api}/blog/rss.xml`,
  };
}

export type StorefrontUrls = ReturnType<typeof storefrontUrls>;

/** The latest of some instants (a reduce: a sitemap's lists are too long to spread into Math.max). */
export const latest = (first: Date, rest: Date[] = []): Date => rest.reduce((max, d) => (d > max ? d : max), first);
