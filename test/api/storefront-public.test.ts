import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { http, useTestApi, type HttpResult } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { rawGet as rawGetFrom } from '../helpers/storefront';

const t = useTestApi();
const PUBLIC = '/api/v1/storefront/public';

type Json = Record<string, unknown>;

async function createProduct(key: string, body: Json): Promise<Json> {
  const res = await http<{ data: Json }>(t.api.baseUrl, 'POST', '/api/v1/storefront/products', { key, body: { price: 10, currency: 'USD', type: 'digital', ...body } });
  expect(res.status).toBe(201);
  return res.body.data;
}

async function addFile(key: string, productId: unknown) {
  const res = await http(t.api.baseUrl, 'POST', `/api/v1/storefront/products/${String(productId)}/files`, {
    key,
    body: { fileName: 'book.pdf', fileSize: 1234, mimeType: 'application/pdf' },
  });
  expect(res.status).toBe(201);
}

const rawGet = (path: string, headers: Record<string, string>) => rawGetFrom(t.api.baseUrl, path, headers);

/** Every key and value of a JSON document, depth first. */
function* walk(value: unknown, path = '$'): Generator<[string, string, unknown]> {
  if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* walk(v, `${path}[${i}]`);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      yield [path, k, v];
      yield* walk(v, `${path}.${k}`);
    }
  }
}

/** Nothing a buyer must not see: storage keys, the workspace id outside `merchant`, private metadata, cost prices. */
function expectNothingPrivate(body: unknown, ws: CreatedWorkspace, others: CreatedWorkspace[]) {
  const text = JSON.stringify(body);
  for (const other of others) expect(text).not.toContain(other.accountId);
  for (const [path, key, value] of walk(body)) {
    expect([path, key]).not.toEqual([path, 'storageKey']);
    expect([path, key]).not.toEqual([path, 'costPrice']);
    if (key === 'accountId') throw new Error(`accountId at ${path}`);
    if (value === ws.accountId) expect(`${path}.${key}`).toMatch(/^\$\.data\.merchant\.id$|^\$\.data\.id$/);
    if (key === 'metadata') expect(Object.keys(value as Json).every((k) => ['seoTitle', 'metaDescription', 'featureBullets'].includes(k))).toBe(true);
  }
}

describe('public storefront reads', () => {
  let ws: CreatedWorkspace;
  let other: CreatedWorkspace;
  let products: Record<string, Json>;

  beforeAll(async () => {
    ws = await t.ctx.createWorkspace({ plan: 'pro' });
    other = await t.ctx.createWorkspace({ plan: 'pro' });
    const key = ws.liveSecretKey;
    products = {
      ebook: await createProduct(key, { name: 'Batik e-book', slug: 'ebook', published: true, tags: ['batik', 'guide'], metadata: { seoTitle: 'Batik', supplierCost: '3' } }),
      course: await createProduct(key, { name: 'Batik course', slug: 'course', published: true, tags: ['batik'] }),
      poster: await createProduct(key, { name: 'Poster', slug: 'poster', published: true, tags: ['art'] }),
      draft: await createProduct(key, { name: 'Draft', slug: 'draft', published: false, tags: ['batik'] }),
      archived: await createProduct(key, { name: 'Old', slug: 'old', published: true, tags: ['batik'] }),
    };
    await addFile(key, products.ebook!.id);
    expect((await http(t.api.baseUrl, 'DELETE', `/api/v1/storefront/products/${String(products.archived!.id)}`, { key })).status).toBe(204);
    await createProduct(ws.secretKey, { name: 'Test-mode only', slug: 'test-only', published: true });
    await createProduct(other.liveSecretKey, { name: 'Elsewhere', slug: 'ebook', published: true, tags: ['batik'] });
    await http(t.api.baseUrl, 'PATCH', '/api/v1/account/storefront', {
      key: ws.secretKey,
      body: { name: 'Batik Sari', brandColor: '#112233', metaPixelId: '1234567890', customDomains: [`${ws.slug}.shop.example.com`] },
    });
  });

  it('answers the landing payload: branding, published live products only, pixels', async () => {
    const res = await http<{ data: { merchant: Json; products: Json[]; discountCodes: Json[]; pixels: Json } }>(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}`);
    expect(res.status).toBe(200);
    expect(res.body.data.discountCodes).toEqual([]);
    expect(res.body.data.merchant).toEqual({ id: ws.accountId, name: 'Batik Sari', slug: ws.slug, brandColor: '#112233', brandLogo: null, brandBanner: null, description: null });
    expect(res.body.data.products.map((p) => p.slug).sort()).toEqual(['course', 'ebook', 'poster']);
    expect(res.body.data.pixels).toEqual({ metaPixelId: '1234567890', googleTagId: null, tiktokPixelId: null });
    const ebook = res.body.data.products.find((p) => p.slug === 'ebook')!;
    expect(ebook.files).toEqual([expect.objectContaining({ fileName: 'book.pdf', fileSize: 1234 })]);
    expect(ebook.metadata).toEqual({ seoTitle: 'Batik' });
    expectNothingPrivate(res.body, ws, [other]);
  });

  it('answers a published product with its cross-sell list, and 404 for unpublished, archived or unknown ones', async () => {
    const res = await http<{ data: Json & { crossSell: Json[] } }>(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}/ebook`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: products.ebook!.id, slug: 'ebook', variants: [], inventory: null });
    expect(res.body.data.crossSell.map((p) => p.slug)).toEqual(['course']);
    expectNothingPrivate(res.body, ws, [other]);
    for (const slug of ['draft', 'old', 'test-only', 'no-such-product']) {
      expectError(await http(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}/${slug}`), 404, 'RESOURCE_NOT_FOUND');
    }
    expectError(await http(t.api.baseUrl, 'GET', `${PUBLIC}/no-such-merchant-xyz`), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'GET', `${PUBLIC}/no-such-merchant-xyz/ebook`), 404, 'RESOURCE_NOT_FOUND');
  });

  it('resolves a slug or a custom domain to the workspace and its branding', async () => {
    const bySlug = await http(t.api.baseUrl, 'GET', `${PUBLIC}/resolve/${ws.slug}`);
    const byDomain = await http(t.api.baseUrl, 'GET', `${PUBLIC}/resolve/${ws.slug}.shop.example.com`);
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.data).toMatchObject({ id: ws.accountId, slug: ws.slug, name: 'Batik Sari' });
    expect(byDomain.body.data).toEqual(bySlug.body.data);
    expectError(await http(t.api.baseUrl, 'GET', `${PUBLIC}/resolve/unknown.example.com`), 404, 'RESOURCE_NOT_FOUND');
  });

  it('serves a custom domain host as the workspace, with the slug left out of the path', async () => {
    const viaHost = async (path: string) => {
      const res = await rawGet(path, { host: `${ws.slug}.shop.example.com` });
      return { status: res.status, body: JSON.parse(res.text) as { data: Json } };
    };
    const landing = await viaHost(`${PUBLIC}/`);
    expect(landing.status).toBe(200);
    expect((landing.body.data.merchant as Json).id).toBe(ws.accountId);
    // Without the trailing slash, and with a query, it is the same landing.
    for (const path of [PUBLIC, `${PUBLIC}?utm_source=ad`]) {
      const bare = await viaHost(path);
      expect([path, bare.status]).toEqual([path, 200]);
      expect(bare.body.data).toEqual(landing.body.data);
    }
    const product = await viaHost(`${PUBLIC}/course`);
    expect(product.status).toBe(200);
    expect(product.body.data.id).toBe(products.course!.id);
    const withSlug = await viaHost(`${PUBLIC}/${ws.slug}/course`);
    expect(withSlug.body.data.id).toBe(products.course!.id);
  });

  it('reads the test catalogue with a test key of the same workspace, and refuses another workspace key', async () => {
    const preview = await http<{ data: { products: Json[] } }>(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}`, { key: ws.publishableKey });
    expect(preview.body.data.products.map((p) => p.slug)).toEqual(['test-only']);
    const live = await http<{ data: { products: Json[] } }>(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}`, { key: ws.livePublishableKey });
    expect(live.body.data.products.map((p) => p.slug).sort()).toEqual(['course', 'ebook', 'poster']);
    expectError(await http(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}`, { key: other.livePublishableKey }), 403, 'FORBIDDEN');
    expectError(await http(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}`, { key: 'pk_live_notarealkey' }), 401, 'INVALID_API_KEY');
  });

  it('lists the publicly listed codes a buyer can use now, on the landing page and on their own route', async () => {
    const code = async (body: Json) => {
      const res = await http<{ data: Json }>(t.api.baseUrl, 'POST', '/api/v1/discount-codes', { key: ws.liveSecretKey, body: { type: 'percent', value: 10, currency: 'USD', ...body } });
      expect(res.status).toBe(201);
      return res.body.data;
    };
    const hour = 3_600_000;
    await code({ code: 'PUBLIC10', public: true, minPurchaseAmount: 500, maxUsesTotal: 100 });
    await code({ code: 'PRIVATE', public: false });
    await code({ code: 'OFF', public: true, active: false });
    await code({ code: 'LATER', public: true, startsAt: new Date(Date.now() + hour).toISOString() });
    await code({ code: 'GONE', public: true, startsAt: new Date(Date.now() - 2 * hour).toISOString(), expiresAt: new Date(Date.now() - hour).toISOString() });
    const deleted = await code({ code: 'DELETED', public: true });
    await http(t.api.baseUrl, 'DELETE', `/api/v1/discount-codes/${String(deleted.id)}`, { key: ws.liveSecretKey });
    await http(t.api.baseUrl, 'POST', '/api/v1/discount-codes', { key: other.liveSecretKey, body: { code: 'THEIRS', type: 'fixed', value: 100, currency: 'USD', public: true } });

    const listed = await http<{ data: Json[] }>(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}/discount-codes`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      { code: 'PUBLIC10', description: null, type: 'percent', value: 10, currency: 'USD', scope: 'cart', productIds: null, tagFilter: null, minPurchaseAmount: 500, startsAt: null, expiresAt: null },
    ]);
    const landing = await http<{ data: { discountCodes: Json[] } }>(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}`);
    expect(landing.body.data.discountCodes).toEqual(listed.body.data);
    expectNothingPrivate(listed.body, ws, [other]);
  });

  it('sends Cache-Control and an ETag of the data, and answers 304 to a matching If-None-Match', async () => {
    const first: HttpResult = await http(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}/ebook`);
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/"/);
    const again = await http(t.api.baseUrl, 'GET', `${PUBLIC}/${ws.slug}/ebook`);
    expect(again.headers.get('etag')).toBe(etag);
    const notModified = await rawGet(`${PUBLIC}/${ws.slug}/ebook`, { 'if-none-match': etag! });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    await http(t.api.baseUrl, 'PATCH', `/api/v1/storefront/products/${String(products.ebook!.id)}`, { key: ws.liveSecretKey, body: { name: 'Batik e-book, 2nd ed.' } });
    const changed = await rawGet(`${PUBLIC}/${ws.slug}/ebook`, { 'if-none-match': etag! });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });
});
