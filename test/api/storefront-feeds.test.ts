import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { createPost, createProduct, expectRevalidates, getXml } from '../helpers/storefront';

// The sitemap and the three channel feeds (docs/decisions/storefront.md, "Sitemap" and "Channel feeds").

const t = useTestApi();
const PUBLIC = '/api/v1/storefront/public';
const W3C_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

type Json = Record<string, unknown>;
type Item = Record<string, string | string[]>;
type Feed = { rss: { '@_version': string; '@_xmlns:g': string; channel: Json & { item?: Item[] } } };

/** What each channel requires on every item, named as in the g: RSS format (the channels' specifications). */
const REQUIRED: Record<string, string[]> = {
  google: ['g:id', 'title', 'description', 'link', 'g:image_link', 'g:availability', 'g:price'],
  meta: ['g:id', 'title', 'description', 'g:availability', 'g:condition', 'g:price', 'link', 'g:image_link', 'g:brand'],
  tiktok: ['g:id', 'title', 'description', 'g:availability', 'g:condition', 'g:price', 'link', 'g:image_link', 'g:brand'],
};
const IN_STOCK: Record<string, string> = { google: 'in_stock', meta: 'in stock', tiktok: 'in stock' };

describe('sitemap and channel feeds', () => {
  let ws: CreatedWorkspace;
  let other: CreatedWorkspace;
  let products: Record<string, Json & { id: string; pageUrl: string }>;
  let post: Json & { slug: string };

  beforeAll(async () => {
    ws = await t.ctx.createWorkspace({ plan: 'pro' });
    other = await t.ctx.createWorkspace({ plan: 'pro' });
    const base = t.api.baseUrl;
    const key = ws.liveSecretKey;
    await http(base, 'PATCH', '/api/v1/account/storefront', { key: ws.secretKey, body: { name: 'Batik & Co' } });
    products = {
      full: await createProduct(base, key, {
        name: 'Batik <Tulis> scarf',
        slug: 'scarf',
        description: '**Hand-drawn** wax & dye.\n\n<script>alert(1)</script>',
        thumbnail: 'https://cdn.example.com/scarf.jpg',
        coverImages: ['https://cdn.example.com/scarf-2.jpg', 'https://cdn.example.com/scarf-3.jpg'],
        gtin: '00012345678905',
        brand: 'Sari',
        googleProductCategory: 'Apparel & Accessories > Clothing Accessories > Scarves & Shawls',
        price: 25,
      }),
      plain: await createProduct(base, key, { name: 'Sarong', slug: 'sarong', price: 150000, currency: 'IDR', coverImages: ['https://cdn.example.com/sarong.jpg'] }),
      noImage: await createProduct(base, key, { name: 'No picture', slug: 'no-image' }),
      excluded: await createProduct(base, key, { name: 'Kept out of feeds', slug: 'excluded', thumbnail: 'https://cdn.example.com/x.jpg', feedExcluded: true }),
      draft: await createProduct(base, key, { name: 'Draft', slug: 'draft', thumbnail: 'https://cdn.example.com/d.jpg', published: false }),
      archived: await createProduct(base, key, { name: 'Archived', slug: 'archived', thumbnail: 'https://cdn.example.com/a.jpg' }),
    };
    expect((await http(base, 'DELETE', `/api/v1/storefront/products/${products.archived!.id}`, { key })).status).toBe(204);
    await createProduct(base, ws.secretKey, { name: 'Test mode', slug: 'test-only', thumbnail: 'https://cdn.example.com/t.jpg' });
    await createProduct(base, other.liveSecretKey, { name: 'Elsewhere', slug: 'scarf', thumbnail: 'https://cdn.example.com/o.jpg' });
    post = await createPost(base, key, { title: 'Care guide', slug: 'care-guide', published: true, publishedAt: '2024-03-01T00:00:00Z' });
    await createPost(base, key, { title: 'Draft post', slug: 'draft-post' });
    await createPost(base, key, { title: 'Scheduled', slug: 'scheduled', published: true, publishedAt: '2099-01-01' });
    await createPost(base, ws.secretKey, { title: 'Test post', slug: 'test-post', published: true });
  });

  it('lists the landing page, the blog, every published product page and visible post, each with a lastmod', async () => {
    type Sitemap = { urlset: { '@_xmlns': string; url: Array<{ loc: string; lastmod: string }> } };
    const { doc } = await getXml<Sitemap>(t.api.baseUrl, `${PUBLIC}/${ws.slug}/sitemap`, 'application/xml');
    expect(doc.urlset['@_xmlns']).toBe('http://www.sitemaps.org/schemas/sitemap/0.9');
    const site = `${t.ctx.config.PUBLIC_BASE_URL}/${ws.slug}`;
    expect(doc.urlset.url.map((u) => u.loc).sort()).toEqual(
      [site, `${site}/blog`, `${site}/blog/care-guide`, ...['full', 'plain', 'noImage', 'excluded'].map((k) => products[k]!.pageUrl)].sort(),
    );
    for (const { lastmod } of doc.urlset.url) {
      expect(lastmod).toMatch(W3C_DATETIME);
      expect(Number.isNaN(Date.parse(lastmod))).toBe(false);
    }
    const byLoc = new Map(doc.urlset.url.map((u) => [u.loc, u.lastmod]));
    expect(byLoc.get(products.full!.pageUrl)).toBe(products.full!.updatedAt);
    expect(byLoc.get(`${site}/blog/care-guide`)).toBe(post.updatedAt);
    expect(Date.parse(byLoc.get(site)!)).toBeGreaterThanOrEqual(Date.parse(products.excluded!.updatedAt as string));
  });

  it.each(['google', 'meta', 'tiktok'])('%s.xml lists exactly the eligible products, each with every field the channel requires', async (channel) => {
    const { doc, text } = await getXml<Feed>(t.api.baseUrl, `${PUBLIC}/${ws.slug}/feeds/${channel}.xml`, 'application/rss+xml');
    expect(doc.rss['@_version']).toBe('2.0');
    expect(doc.rss['@_xmlns:g']).toBe('http://base.google.com/ns/1.0');
    expect(doc.rss.channel).toMatchObject({ title: 'Batik & Co', link: `${t.ctx.config.PUBLIC_BASE_URL}/${ws.slug}` });
    const items = doc.rss.channel.item ?? [];
    // Unpublished, archived, feedExcluded, test-mode and other workspaces' products are out; so is one without any image.
    expect(items.map((i) => i['g:id']).sort()).toEqual([products.full!.id, products.plain!.id].sort());
    for (const item of items) {
      for (const field of REQUIRED[channel]!) expect([field, typeof item[field] === 'string' && item[field] !== '']).toEqual([field, true]);
      expect(item['g:condition']).toBe('new');
      expect(item['g:availability']).toBe(IN_STOCK[channel]);
    }
    const full = items.find((i) => i['g:id'] === products.full!.id)!;
    expect(full).toMatchObject({
      title: 'Batik <Tulis> scarf',
      description: 'Hand-drawn wax & dye.',
      link: products.full!.pageUrl,
      'g:image_link': 'https://cdn.example.com/scarf.jpg',
      'g:additional_image_link': ['https://cdn.example.com/scarf-2.jpg', 'https://cdn.example.com/scarf-3.jpg'],
      'g:price': '25.00 USD',
      'g:brand': 'Sari',
      'g:gtin': '00012345678905',
      'g:google_product_category': 'Apparel & Accessories > Clothing Accessories > Scarves & Shawls',
    });
    expect(full).not.toHaveProperty('g:identifier_exists');
    const plain = items.find((i) => i['g:id'] === products.plain!.id)!;
    expect(plain).toMatchObject({ title: 'Sarong', description: 'Sarong', 'g:image_link': 'https://cdn.example.com/sarong.jpg', 'g:price': '150000 IDR', 'g:identifier_exists': 'no' });
    expect(plain).not.toHaveProperty('g:gtin');
    // Google takes identifier_exists instead of an invented brand; Meta and TikTok require one: the store's name.
    if (channel === 'google') expect(plain).not.toHaveProperty('g:brand');
    else expect(plain['g:brand']).toBe('Batik & Co');
    expect(text).not.toContain('<script');
    expect(text).toContain('Batik &lt;Tulis&gt; scarf');
  });

  it('reads the test catalogue with a test key, and answers 404 for an unknown merchant or channel', async () => {
    const { doc } = await getXml<Feed>(t.api.baseUrl, `${PUBLIC}/${ws.slug}/feeds/google.xml`, 'application/rss+xml', ws.publishableKey);
    expect(doc.rss.channel.item!.map((i) => i.title)).toEqual(['Test mode']);
    expectError(await http(t.api.baseUrl, 'GET', `${PUBLIC}/no-such-merchant-xyz/feeds/google.xml`), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'GET', `${PUBLIC}/no-such-merchant-xyz/sitemap`), 404, 'RESOURCE_NOT_FOUND');
    expect((await http(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}/feeds/bing.xml`)).status).toBe(404);
  });

  it('answers an empty but valid feed for a catalogue with nothing eligible', async () => {
    const empty = await t.ctx.createWorkspace();
    const { doc } = await getXml<Feed>(t.api.baseUrl, `${PUBLIC}/${empty.slug}/feeds/meta.xml`, 'application/rss+xml');
    expect(doc.rss.channel.item ?? []).toEqual([]);
  });

  it('revalidates the sitemap and the feeds with ETag and 304, and changes the ETag when a product changes', async () => {
    await expectRevalidates(t.api.baseUrl, `${PUBLIC}/${ws.slug}/sitemap`);
    for (const channel of ['google', 'meta', 'tiktok']) await expectRevalidates(t.api.baseUrl, `${PUBLIC}/${ws.slug}/feeds/${channel}.xml`);
    const before = await http(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}/feeds/google.xml`);
    await http(t.api.baseUrl, 'PATCH', `/api/v1/storefront/products/${products.plain!.id}`, { key: ws.liveSecretKey, body: { feedExcluded: true } });
    const after = await http(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}/feeds/google.xml`);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(after.text).not.toContain(products.plain!.id);
  });
});
