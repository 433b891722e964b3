import { DomUtils, parseDocument } from 'htmlparser2';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { createPost, expectRevalidates, getXml, rawGet } from '../helpers/storefront';

// The storefront's blog: index, post (sanitised HTML) and RSS (docs/decisions/storefront.md, "Blog").

const t = useTestApi();
const PUBLIC = '/api/v1/storefront/public';

type Json = Record<string, unknown>;
type Summary = Json & { id: string; slug: string; excerpt: string; url: string };

const HOSTILE = [
  '# Safe **bold** title',
  '<script>alert("script")</script>',
  '<img src="https://cdn.example.com/x.png" onerror="alert(\'onerror\')">',
  '[click me](javascript:alert(1)) [encoded](jav&#x61;script:alert(2)) <a href="data:text/html,<b>x</b>" onclick="alert(3)">data</a>',
  '<iframe src="https://evil.example.com"></iframe><style>body{display:none}</style>',
  '[a real link](https://example.com/page "Page")',
].join('\n\n'); // blank lines: a raw HTML block would otherwise swallow the Markdown after it

describe('public blog', () => {
  let ws: CreatedWorkspace;
  let other: CreatedWorkspace;
  let posts: Record<string, Json & { id: string; slug: string }>;

  beforeAll(async () => {
    ws = await t.ctx.createWorkspace({ plan: 'pro' });
    other = await t.ctx.createWorkspace({ plan: 'pro' });
    const key = ws.liveSecretKey;
    const base = t.api.baseUrl;
    posts = {
      older: await createPost(base, key, { title: 'Older', slug: 'older', published: true, publishedAt: '2024-01-01T00:00:00Z', body: 'Batik is **wax-resist** dyeing & more. '.repeat(20) }),
      newer: await createPost(base, key, { title: 'Newer <news>', slug: 'newer', published: true, publishedAt: '2024-06-01T00:00:00Z', excerpt: 'The merchant’s own excerpt' }),
      hostile: await createPost(base, key, { title: 'Hostile', slug: 'hostile', published: true, publishedAt: '2023-01-01T00:00:00Z', body: HOSTILE }),
      draft: await createPost(base, key, { title: 'Draft', slug: 'draft' }),
      scheduled: await createPost(base, key, { title: 'Scheduled', slug: 'scheduled', published: true, publishedAt: '2099-01-01T00:00:00Z' }),
    };
    await createPost(base, ws.secretKey, { title: 'Test mode', slug: 'test-only', published: true });
    await createPost(base, other.liveSecretKey, { title: 'Elsewhere', slug: 'elsewhere', published: true });
    await http(base, 'PATCH', '/api/v1/account/storefront', { key: ws.secretKey, body: { name: 'Batik Sari', description: 'Hand-made batik & more' } });
  });

  it('lists the visible live posts, newest publication first, with excerpts and URLs', async () => {
    const res = await http<{ data: { posts: Summary[]; rssUrl: string } }>(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}/blog`);
    expect(res.status).toBe(200);
    expect(res.body.data.posts.map((p) => p.slug)).toEqual(['newer', 'older', 'hostile']);
    const [newer, older] = res.body.data.posts;
    expect(newer).toEqual({
      id: posts.newer!.id,
      title: 'Newer <news>',
      slug: 'newer',
      excerpt: 'The merchant’s own excerpt',
      coverImage: null,
      publishedAt: '2024-06-01T00:00:00.000Z',
      updatedAt: posts.newer!.updatedAt,
      url: `${t.ctx.config.PUBLIC_BASE_URL}/${ws.slug}/blog/newer`,
    });
    // Derived from the body: its words without the Markdown, cut at a word within 280 characters.
    expect(older!.excerpt).toMatch(/^Batik is wax-resist dyeing & more\. Batik/);
    expect(older!.excerpt.endsWith('…')).toBe(true);
    expect([...older!.excerpt].length).toBeLessThanOrEqual(280);
    expect(res.body.data.rssUrl).toBe(`${t.ctx.config.PUBLIC_BASE_URL}/api/v1/storefront/public/${ws.slug}/blog/rss.xml`);
    expect(JSON.stringify(res.body)).not.toContain(ws.accountId);
  });

  it('answers a published post with its Markdown rendered to inert HTML', async () => {
    const res = await http<{ data: Summary & { html: string } }>(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}/blog/hostile`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: posts.hostile!.id, title: 'Hostile', url: `${t.ctx.config.PUBLIC_BASE_URL}/${ws.slug}/blog/hostile` });
    const doc = parseDocument(res.body.data.html);
    const elements = DomUtils.findAll(() => true, doc.children);
    const names = new Set(elements.map((e) => e.name));
    for (const banned of ['script', 'iframe', 'style', 'object', 'embed', 'form']) expect(names.has(banned)).toBe(false);
    for (const element of elements) {
      for (const [name, value] of Object.entries(element.attribs)) {
        expect(name.startsWith('on')).toBe(false);
        if (name === 'href' || name === 'src') expect(value.trim().toLowerCase()).toMatch(/^(https?:|mailto:)/);
      }
    }
    const links = elements.filter((e) => e.name === 'a');
    expect(links.map((a) => DomUtils.textContent(a))).toEqual(['click me', 'encoded', 'data', 'a real link']);
    for (const a of links) expect(a.attribs.rel).toBe('nofollow noopener');
    expect(links.filter((a) => a.attribs.href).map((a) => a.attribs.href)).toEqual(['https://example.com/page']);
    expect(elements.find((e) => e.name === 'img')!.attribs).toEqual({ src: 'https://cdn.example.com/x.png' });
    expect(DomUtils.textContent(elements.find((e) => e.name === 'h1')!)).toBe('Safe bold title');
    expect(DomUtils.textContent(doc)).not.toContain('alert');
  });

  it('answers 404 for a draft, a scheduled, a test-mode, another workspace’s or an unknown post', async () => {
    for (const slug of ['draft', 'scheduled', 'test-only', 'elsewhere', 'no-such-post']) {
      expectError(await http(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}/blog/${slug}`), 404, 'RESOURCE_NOT_FOUND');
    }
    expectError(await http(t.api.baseUrl, 'GET', `${PUBLIC}/no-such-merchant-xyz/blog`), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'GET', `${PUBLIC}/no-such-merchant-xyz/blog/rss.xml`), 404, 'RESOURCE_NOT_FOUND');
  });

  it('previews the test environment with a test key of the workspace', async () => {
    const res = await http<{ data: { posts: Summary[] } }>(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}/blog`, { key: ws.publishableKey });
    expect(res.body.data.posts.map((p) => p.slug)).toEqual(['test-only']);
    const { doc } = await getXml<{ rss: { channel: { item: Json[] } } }>(t.api.baseUrl, `${PUBLIC}/${ws.slug}/blog/rss.xml`, 'application/rss+xml', ws.publishableKey);
    expect(doc.rss.channel.item.map((i) => i.title)).toEqual(['Test mode']);
  });

  it('serves RSS 2.0 of exactly the visible posts', async () => {
    type Rss = { rss: { '@_version': string; channel: Json & { item: Array<Json & { guid: Json }> } } };
    const { doc } = await getXml<Rss>(t.api.baseUrl, `${PUBLIC}/${ws.slug}/blog/rss.xml`, 'application/rss+xml');
    expect(doc.rss['@_version']).toBe('2.0');
    const { channel } = doc.rss;
    expect(channel).toMatchObject({
      title: 'Batik Sari blog',
      link: `${t.ctx.config.PUBLIC_BASE_URL}/${ws.slug}/blog`,
      description: 'Hand-made batik & more',
      'atom:link': { '@_href': `${t.ctx.config.PUBLIC_BASE_URL}/api/v1/storefront/public/${ws.slug}/blog/rss.xml`, '@_rel': 'self', '@_type': 'application/rss+xml' },
    });
    expect(new Date(channel.lastBuildDate as string).toUTCString()).toBe(channel.lastBuildDate);
    expect(channel.item.map((i) => i.guid['#text'])).toEqual([posts.newer!.id, posts.older!.id, posts.hostile!.id]);
    const newer = channel.item[0]!;
    expect(newer).toEqual({
      title: 'Newer <news>',
      link: `${t.ctx.config.PUBLIC_BASE_URL}/${ws.slug}/blog/newer`,
      guid: { '#text': posts.newer!.id, '@_isPermaLink': 'false' },
      pubDate: 'Sat, 01 Jun 2024 00:00:00 GMT',
      description: 'The merchant’s own excerpt',
    });
    for (const item of channel.item) expect(String(item.description)).not.toMatch(/<|alert/);
  });

  it('serves RSS and the post page on a custom domain, and revalidates them with ETag and 304', async () => {
    await http(t.api.baseUrl, 'PATCH', '/api/v1/account/storefront', { key: ws.secretKey, body: { customDomains: [`${ws.slug}.blog.example.com`] } });
    const viaHost = await rawGet(t.api.baseUrl, `${PUBLIC}/blog/rss.xml`, { host: `${ws.slug}.blog.example.com` });
    expect(viaHost.status).toBe(200);
    expect(viaHost.text).toContain(posts.newer!.id);
    await expectRevalidates(t.api.baseUrl, `${PUBLIC}/${ws.slug}/blog/rss.xml`);
    await expectRevalidates(t.api.baseUrl, `${PUBLIC}/${ws.slug}/blog/newer`);
    const etag = (await rawGet(t.api.baseUrl, `${PUBLIC}/${ws.slug}/blog/rss.xml`, {})).headers.etag as string;
    await http(t.api.baseUrl, 'PATCH', `/api/v1/blog-posts/${posts.newer!.id}`, { key: ws.liveSecretKey, body: { title: 'Newer, edited' } });
    const changed = await rawGet(t.api.baseUrl, `${PUBLIC}/${ws.slug}/blog/rss.xml`, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.text).toContain('Newer, edited');
  });

  it('documents the RSS route with its media type', async () => {
    const res = await http<{ paths: Record<string, { get: { responses: Record<string, { content: Record<string, unknown> }> } }> }>(t.api.baseUrl, 'GET', '/api/openapi.json');
    expect(Object.keys(res.body.paths['/v1/storefront/public/{merchantSlug}/blog/rss.xml']!.get.responses['200']!.content)).toEqual(['application/rss+xml']);
  });
});
