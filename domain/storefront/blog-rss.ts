import { buildXml } from '../../lib/xml';
import { excerptOf, type PublishedPostRow } from './blog-posts';
import type { Merchant } from './merchant';
import type { StorefrontUrls } from './urls';

/**
 * RSS 2.0 of a merchant's blog (with the atom:link self reference feed validators ask for). Every date comes
 * from the posts, never from the clock, so an unchanged blog yields the same document and the same ETag.
 */
export function buildBlogRss(merchant: Merchant, urls: StorefrontUrls, posts: PublishedPostRow[]): string {
  const newest = posts.reduce<Date | undefined>((max, p) => (!max || p.updatedAt > max ? p.updatedAt : max), undefined);
  return buildXml({
    rss: {
      '@_version': '2.0',
      '@_xmlns:atom': 'http://www.w3.org/2005/Atom',
      channel: {
        title: `${merchant.name} blog`,
        link: urls.blog,
        description: merchant.description ?? `News and articles from ${merchant.name}`,
        'atom:link': { '@_href': urls.rss, '@_rel': 'self', '@_type': 'application/rss+xml' },
        lastBuildDate: newest?.toUTCString(),
        item: posts.map((post) => ({
          title: post.title,
          link: urls.post(post.slug),
          // The id, not the URL: it survives a change of slug, so readers do not see the post twice.
          guid: { '#text': post.id, '@_isPermaLink': 'false' },
          pubDate: post.publishedAt.toUTCString(),
          description: excerptOf(post),
        })),
      },
    },
  });
}
