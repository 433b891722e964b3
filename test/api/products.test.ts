import pg from 'pg';
import { Op } from 'sequelize';
import { encodeCursor } from '../../db/cursor';
import { Event, Product } from '../../db/models';
import { newId } from '../../lib/ids';
import { PLAN_LIMITS } from '../../lib/plan-limits';
import { insertAiRuns } from '../fixtures/ai-runs';
import { insertProducts } from '../fixtures/products';
import { http, useTestApi, type HttpResult } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { postMultipart } from '../helpers/multipart';

const t = useTestApi({ PUBLIC_BASE_URL: 'https://shop.example.com' });

const PRODUCTS = '/api/v1/storefront/products';
type ProductDto = Record<string, unknown> & { id: string; slug: string; files: Array<Record<string, unknown>> };
type Page = { data: ProductDto[]; meta: { page: { nextCursor: string | null } } };

const digital = { name: 'Ebook', price: 150_000, currency: 'IDR', type: 'digital' };
const physical = { name: 'Mug', price: 12, currency: 'USD', type: 'physical', weight: 350 };

async function create(key: string, body: Record<string, unknown> = digital): Promise<ProductDto> {
  const res = await http<{ data: ProductDto }>(t.api.baseUrl, 'POST', PRODUCTS, { key, body });
  expect(res.status).toBe(201);
  return res.body.data;
}

/** A workspace's product, one in its live environment, an archived one, and another workspace: what the 404 tests probe. */
async function productsToProbe() {
  const ws = await t.ctx.createWorkspace();
  const other = await t.ctx.createWorkspace();
  const product = await create(ws.secretKey);
  const live = await create(ws.liveSecretKey);
  const archived = await create(ws.secretKey);
  await http(t.api.baseUrl, 'DELETE', `${PRODUCTS}/${archived.id}`, { key: ws.secretKey });
  return { ws, other, product, live, archived };
}

async function snapshot(accountId: string) {
  const [products, events] = await Promise.all([
    Product.findAll({ where: { accountId }, order: [['id', 'ASC']], raw: true }),
    Event.findAll({ where: { accountId }, order: [['id', 'ASC']], raw: true }),
  ]);
  return { products, events };
}

/** Asserts a refused request wrote nothing at all: same product rows (unchanged), same events. */
async function expectNothingWritten(accountId: string, before: Awaited<ReturnType<typeof snapshot>>) {
  expect(await snapshot(accountId)).toEqual(before);
}

function expectNamesField(res: HttpResult, field: string) {
  const details = (res.body.error as { details?: Array<{ field?: string }> }).details ?? [];
  expect(details.map((d) => d.field)).toContain(field);
}

describe('POST /v1/storefront/products', () => {
  it('creates an unpublished product with every documented field and emits service.product.created.v1 with the same object', async () => {
    const ws = await t.ctx.createWorkspace({ slug: `shop-${Date.now().toString(36)}` });
    const res = await http<{ data: ProductDto }>(t.api.baseUrl, 'POST', PRODUCTS, {
      key: ws.secretKey,
      body: {
        name: '  Café Deluxe, 2nd Ed.  ',
        price: 150_000,
        currency: 'IDR',
        type: 'physical',
        weight: 800,
        length: 20,
        width: 10,
        height: 5,
        description: '# Markdown',
        thumbnail: 'https://cdn.example.com/t.png',
        coverImages: ['https://cdn.example.com/1.png', 'https://cdn.example.com/2.png'],
        tags: ['coffee', 'gift'],
        licenseEnabled: true,
        maxActivations: 3,
        madeToOrder: true,
        preorderShipsFrom: '2030-01-15T00:00:00+07:00',
        leadTimeText: '2 weeks',
        batchHint: 'ships Fridays',
        originAreaId: 'IDNP6C',
        requiresInsurance: true,
        gtin: '0012345678905',
        googleProductCategory: 'Home & Garden',
        brand: 'Acme',
        feedExcluded: true,
        metadata: { sku: 'CAFE-2' },
      },
    });
    expect(res.status).toBe(201);
    const product = res.body.data;
    expect(product).toEqual({
      id: expect.stringMatching(/^prod_[0-9A-Z]{26}$/),
      accountId: ws.accountId,
      name: 'Café Deluxe, 2nd Ed.',
      slug: 'cafe-deluxe-2nd-ed',
      description: '# Markdown',
      price: 150_000,
      currency: 'IDR',
      type: 'physical',
      thumbnail: 'https://cdn.example.com/t.png',
      coverImages: ['https://cdn.example.com/1.png', 'https://cdn.example.com/2.png'],
      tags: ['coffee', 'gift'],
      aiGenerated: false,
      aiStatus: null,
      licenseEnabled: true,
      maxActivations: 3,
      weight: 800,
      length: 20,
      width: 10,
      height: 5,
      originAreaId: 'IDNP6C',
      requiresInsurance: true,
      gtin: '0012345678905',
      googleProductCategory: 'Home & Garden',
      brand: 'Acme',
      feedExcluded: true,
      madeToOrder: true,
      preorderShipsFrom: '2030-01-14T17:00:00.000Z',
      leadTimeText: '2 weeks',
      batchHint: 'ships Fridays',
      published: false,
      archived: false,
      hasVariants: false,
      pageUrl: `https://shop.example.com/${ws.slug}/cafe-deluxe-2nd-ed`,
      files: [],
      metadata: { sku: 'CAFE-2' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    const row = await Product.findByPk(product.id);
    expect(row).toMatchObject({ accountId: ws.accountId, environment: 'test', price: 150_000, published: false, archived: false });
    const events = await Event.findAll({ where: { accountId: ws.accountId } });
    expect(events.map((e) => [e.type, e.environment])).toEqual([['service.product.created.v1', 'test']]);
    expect(events[0]!.data).toEqual(product);
  });

  it('applies the defaults: maxActivations 1, empty arrays and metadata, nulls, published false unless sent', async () => {
    const ws = await t.ctx.createWorkspace();
    const product = await create(ws.secretKey, { ...digital, published: true });
    expect(product).toMatchObject({
      published: true,
      maxActivations: 1,
      coverImages: [],
      tags: [],
      metadata: {},
      description: null,
      thumbnail: null,
      weight: null,
      licenseEnabled: false,
      madeToOrder: false,
      requiresInsurance: false,
      feedExcluded: false,
    });
  });

  it('builds pageUrl from PUBLIC_BASE_URL and the workspace slug, and answers null when the workspace has no slug', async () => {
    const unslugged = await t.ctx.createWorkspace({ slug: null });
    expect((await create(unslugged.secretKey)).pageUrl).toBeNull();
  });

  describe('refuses bad input with 400 VALIDATION_ERROR naming the field, writing nothing', () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['unknown field', { ...digital, colour: 'red' }, 'colour'],
      ['server-managed archived', { ...digital, archived: true }, 'archived'],
      ['server-managed id', { ...digital, id: 'prod_x' }, 'id'],
      ['missing name', { price: 1, currency: 'USD', type: 'digital' }, 'name'],
      ['empty name', { ...digital, name: '   ' }, 'name'],
      ['name over 200', { ...digital, name: 'x'.repeat(201) }, 'name'],
      ['missing price', { name: 'x', currency: 'USD', type: 'digital' }, 'price'],
      ['zero price', { ...digital, price: 0 }, 'price'],
      ['negative price', { ...digital, price: -5 }, 'price'],
      ['fractional price', { ...digital, price: 9.99 }, 'price'],
      ['string price', { ...digital, price: '100' }, 'price'],
      ['unsafe integer price', { ...digital, price: 2 ** 60 }, 'price'],
      ['currency EUR', { ...digital, currency: 'EUR' }, 'currency'],
      ['lowercase currency', { ...digital, currency: 'usd' }, 'currency'],
      ['missing currency', { name: 'x', price: 1, type: 'digital' }, 'currency'],
      ['unknown type', { ...digital, type: 'service' }, 'type'],
      ['missing type', { name: 'x', price: 1, currency: 'USD' }, 'type'],
      ['physical without weight', { name: 'Mug', price: 1, currency: 'USD', type: 'physical' }, 'weight'],
      ['physical with null weight', { name: 'Mug', price: 1, currency: 'USD', type: 'physical', weight: null }, 'weight'],
      ['negative weight', { ...physical, weight: -1 }, 'weight'],
      ['fractional length', { ...physical, length: 1.5 }, 'length'],
      ['slug with uppercase', { ...digital, slug: 'Ebook' }, 'slug'],
      ['slug with space', { ...digital, slug: 'my ebook' }, 'slug'],
      ['slug of one character', { ...digital, slug: 'e' }, 'slug'],
      ['slug over 80', { ...digital, slug: 'e'.repeat(81) }, 'slug'],
      ['description over 10000', { ...digital, description: 'x'.repeat(10_001) }, 'description'],
      ['thumbnail not a URL', { ...digital, thumbnail: 'not a url' }, 'thumbnail'],
      ['thumbnail javascript:', { ...digital, thumbnail: 'javascript:alert(1)' }, 'thumbnail'],
      ['cover image not a URL', { ...digital, coverImages: ['https://ok.example/a.png', 'nope'] }, 'coverImages.1'],
      ['tags not strings', { ...digital, tags: ['ok', 3] }, 'tags.1'],
      ['metadata value not a string', { ...digital, metadata: { a: 1 } }, 'metadata.a'],
      ['metadata nested', { ...digital, metadata: { a: { b: 'c' } } }, 'metadata.a'],
      ['metadata array', { ...digital, metadata: ['a'] }, 'metadata'],
      ['maxActivations 0', { ...digital, maxActivations: 0 }, 'maxActivations'],
      ['preorderShipsFrom not ISO 8601', { ...digital, preorderShipsFrom: 'next friday' }, 'preorderShipsFrom'],
      ['leadTimeText over 500', { ...digital, leadTimeText: 'x'.repeat(501) }, 'leadTimeText'],
      ['batchHint over 500', { ...digital, batchHint: 'x'.repeat(501) }, 'batchHint'],
      ['aiGenerate not boolean', { ...digital, aiGenerate: 'yes' }, 'aiGenerate'],
      ['published as string', { ...digital, published: 'true' }, 'published'],
    ];
    it.each(cases)('%s', async (_label, body, field) => {
      const ws = await t.ctx.createWorkspace();
      const before = await snapshot(ws.accountId);
      const res = await http(t.api.baseUrl, 'POST', PRODUCTS, { key: ws.secretKey, body });
      expectError(res, 400, 'VALIDATION_ERROR');
      expectNamesField(res, field);
      await expectNothingWritten(ws.accountId, before);
    });
  });

  it('refuses a non-JSON body (a form included) with 415 and writes nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const res = await http(t.api.baseUrl, 'POST', PRODUCTS, { key: ws.secretKey, rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    // Only endpoints that declare `multipart` accept it; a JSON route still refuses a form.
    const form = await postMultipart(t.api.baseUrl, PRODUCTS, ws.secretKey, [{ name: 'name', data: 'x' }]);
    expectError(form, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await Product.count({ where: { accountId: ws.accountId } })).toBe(0);
  });

  describe('slug', () => {
    it('derives the slug from the name: lowercase, hyphen-separated, other characters stripped', async () => {
      const ws = await t.ctx.createWorkspace();
      const slugs = [];
      for (const name of ['Hello, World!', "Rock'n'Roll  --  Tee", 'Ünïcödé_Straße 2024', '日本', 'x'.repeat(120)]) {
        slugs.push((await create(ws.secretKey, { ...digital, name })).slug);
      }
      expect(slugs).toEqual(['hello-world', 'rocknroll-tee', 'unicode-strae-2024', 'product', 'x'.repeat(80)]);
    });

    it('adds a base-36 timestamp suffix when the derived slug is taken in the workspace, and not across workspaces or environments', async () => {
      const ws = await t.ctx.createWorkspace();
      const other = await t.ctx.createWorkspace();
      const first = await create(ws.secretKey, { ...digital, name: 'Starter Kit' });
      const before = Date.now();
      const second = await create(ws.secretKey, { ...digital, name: 'Starter Kit' });
      const third = await create(ws.secretKey, { ...digital, name: 'Starter Kit' });
      expect(first.slug).toBe('starter-kit');
      for (const p of [second, third]) {
        const match = /^starter-kit-([0-9a-z]+)$/.exec(p.slug);
        expect(match).not.toBeNull();
        const millis = parseInt(match![1]!, 36) / 1000;
        expect(millis).toBeGreaterThanOrEqual(before - 1000);
        expect(millis).toBeLessThanOrEqual(Date.now() + 1000);
      }
      expect(new Set([first.slug, second.slug, third.slug]).size).toBe(3);
      expect((await create(other.secretKey, { ...digital, name: 'Starter Kit' })).slug).toBe('starter-kit');
      expect((await create(ws.liveSecretKey, { ...digital, name: 'Starter Kit' })).slug).toBe('starter-kit');
    });

    it('keeps a long derived slug within 80 characters when suffixed', async () => {
      const ws = await t.ctx.createWorkspace();
      const name = 'word '.repeat(40);
      await create(ws.secretKey, { ...digital, name });
      const suffixed = await create(ws.secretKey, { ...digital, name });
      expect(suffixed.slug.length).toBeLessThanOrEqual(80);
      expect(suffixed.slug).toMatch(/^word-(word-)*[0-9a-z]+$/);
    });

    it('refuses an explicit slug already used in the workspace (archived products included) with 400 VALIDATION_ERROR, writing nothing', async () => {
      const ws = await t.ctx.createWorkspace();
      const archived = await create(ws.secretKey, { ...digital, slug: 'gone' });
      await http(t.api.baseUrl, 'DELETE', `${PRODUCTS}/${archived.id}`, { key: ws.secretKey });
      await create(ws.secretKey, { ...digital, slug: 'taken' });
      for (const slug of ['taken', 'gone']) {
        const before = await snapshot(ws.accountId);
        const res = await http(t.api.baseUrl, 'POST', PRODUCTS, { key: ws.secretKey, body: { ...digital, slug } });
        expectError(res, 400, 'VALIDATION_ERROR');
        expectNamesField(res, 'slug');
        await expectNothingWritten(ws.accountId, before);
      }
    });

    it('gives distinct slugs to many concurrent creates of the same name', async () => {
      const ws = await t.ctx.createWorkspace({ plan: 'pro' });
      const results = await Promise.all(Array.from({ length: 12 }, () => http<{ data: ProductDto }>(t.api.baseUrl, 'POST', PRODUCTS, { key: ws.secretKey, body: digital })));
      expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
      expect(new Set(results.map((r) => r.body.data.slug)).size).toBe(12);
    });
  });

  describe('plan quota', () => {
    it('caps non-archived products per plan with 403 QUOTA_EXCEEDED, writing nothing; archiving frees a slot; live and test count apart', async () => {
      const ws = await t.ctx.createWorkspace({ plan: 'free' });
      const cap = PLAN_LIMITS.free.products!;
      await insertProducts(t.ctx.sequelize, ws, cap);
      const before = await snapshot(ws.accountId);
      const res = await http(t.api.baseUrl, 'POST', PRODUCTS, { key: ws.secretKey, body: digital });
      expectError(res, 403, 'QUOTA_EXCEEDED');
      await expectNothingWritten(ws.accountId, before);

      expect((await create(ws.liveSecretKey)).id).toBeDefined();
      const [first] = before.products;
      expect((await http(t.api.baseUrl, 'DELETE', `${PRODUCTS}/${first!.id}`, { key: ws.secretKey })).status).toBe(204);
      expect((await create(ws.secretKey)).id).toBeDefined();
    });

    it('is race-safe: concurrent creates past the cap admit exactly the remaining number', async () => {
      const ws = await t.ctx.createWorkspace({ plan: 'free' });
      const cap = PLAN_LIMITS.free.products!;
      await insertProducts(t.ctx.sequelize, ws, cap - 3);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => http(t.api.baseUrl, 'POST', PRODUCTS, { key: ws.secretKey, body: { ...digital, name: `Race ${i}` } })));
      expect(results.filter((r) => r.status === 201)).toHaveLength(3);
      expect(results.filter((r) => r.status === 403)).toHaveLength(7);
      expect(await Product.count({ where: { accountId: ws.accountId, environment: 'test', archived: false } })).toBe(cap);
      expect(await Event.count({ where: { accountId: ws.accountId, type: 'service.product.created.v1' } })).toBe(3);
    });

    it('does not cap products on the pro plan', () => {
      expect(PLAN_LIMITS.pro.products).toBeNull();
    });
  });

  it('answers 403 FORBIDDEN to a publishable key and writes nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const before = await snapshot(ws.accountId);
    expectError(await http(t.api.baseUrl, 'POST', PRODUCTS, { key: ws.publishableKey, body: digital }), 403, 'FORBIDDEN');
    await expectNothingWritten(ws.accountId, before);
  });

  it('replays the same response for a retried Idempotency-Key and creates one product', async () => {
    const ws = await t.ctx.createWorkspace();
    const headers = { 'idempotency-key': `create-${Date.now()}` };
    const first = await http<{ data: ProductDto }>(t.api.baseUrl, 'POST', PRODUCTS, { key: ws.secretKey, body: digital, headers });
    const again = await http<{ data: ProductDto }>(t.api.baseUrl, 'POST', PRODUCTS, { key: ws.secretKey, body: digital, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(await Product.count({ where: { accountId: ws.accountId } })).toBe(1);
  });
});

describe('GET /v1/storefront/products', () => {
  it('lists non-archived products newest first, filtered by published and type', async () => {
    const ws = await t.ctx.createWorkspace();
    const a = await create(ws.secretKey, { ...digital, name: 'A', published: true });
    const b = await create(ws.secretKey, { ...physical, name: 'B' });
    const c = await create(ws.secretKey, { ...digital, name: 'C' });
    const d = await create(ws.secretKey, { ...digital, name: 'D', published: true });
    await http(t.api.baseUrl, 'DELETE', `${PRODUCTS}/${d.id}`, { key: ws.secretKey });
    const ids = async (query: string) => (await http<Page>(t.api.baseUrl, 'GET', `${PRODUCTS}${query}`, { key: ws.secretKey })).body.data.map((p) => p.id);
    expect(await ids('')).toEqual([c.id, b.id, a.id]);
    expect(await ids('?published=true')).toEqual([a.id]);
    expect(await ids('?published=false')).toEqual([c.id, b.id]);
    expect(await ids('?type=physical')).toEqual([b.id]);
    expect(await ids('?type=digital&published=false')).toEqual([c.id]);
    const full = (await http<Page>(t.api.baseUrl, 'GET', PRODUCTS, { key: ws.secretKey })).body.data;
    expect(full[0]).toEqual((await http<{ data: ProductDto }>(t.api.baseUrl, 'GET', `${PRODUCTS}/${c.id}`, { key: ws.secretKey })).body.data);
  });

  it('pages with a cursor (default 50, clamped to [1, 100]) without gaps or repeats', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'pro' });
    await insertProducts(t.ctx.sequelize, ws, 120);
    const expected = (await Product.findAll({ where: { accountId: ws.accountId }, order: [['id', 'DESC']] })).map((p) => p.id);
    const page = async (q: string) => (await http<Page>(t.api.baseUrl, 'GET', `${PRODUCTS}${q}`, { key: ws.secretKey })).body;
    expect((await page('')).data).toHaveLength(50);
    expect((await page('?limit=0')).data).toHaveLength(1);
    expect((await page('?limit=500')).data).toHaveLength(100);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const body: Page = await page(`?limit=45${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...body.data.map((p) => p.id));
      cursor = body.meta.page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(expected);
  });

  it('refuses a bad filter or cursor with 400 VALIDATION_ERROR', async () => {
    const ws = await t.ctx.createWorkspace();
    for (const q of ['?published=yes', '?type=service', '?cursor=garbage', `?cursor=${encodeCursor(newId('key'))}`, '?limit=ten']) {
      expectError(await http(t.api.baseUrl, 'GET', `${PRODUCTS}${q}`, { key: ws.secretKey }), 400, 'VALIDATION_ERROR');
    }
  });

  it('shows only the calling workspace and environment', async () => {
    const ws = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    const mine = await create(ws.secretKey);
    await create(other.secretKey);
    const live = await create(ws.liveSecretKey);
    const ids = async (key: string) => (await http<Page>(t.api.baseUrl, 'GET', PRODUCTS, { key })).body.data.map((p) => p.id);
    expect(await ids(ws.secretKey)).toEqual([mine.id]);
    expect(await ids(ws.liveSecretKey)).toEqual([live.id]);
  });

  it('reads a page in a constant number of SQL statements however many products and files it holds (no N+1)', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'pro' });
    const statementsFor = async () => {
      // The app runs in this process: every statement it sends, through Sequelize or a plain query, is a Client#query.
      const spy = jest.spyOn(pg.Client.prototype, 'query');
      try {
        expect((await http(t.api.baseUrl, 'GET', PRODUCTS, { key: ws.secretKey })).status).toBe(200);
        const sql = spy.mock.calls.map(([query]) => (typeof query === 'string' ? query : (query as { text: string }).text));
        return sql.filter((s) => /product/i.test(s)).length;
      } finally {
        spy.mockRestore();
      }
    };
    const one = await create(ws.secretKey);
    await http(t.api.baseUrl, 'POST', `${PRODUCTS}/${one.id}/files`, { key: ws.secretKey, body: { fileName: 'a.pdf', fileSize: 10 } });
    const withOne = await statementsFor();
    for (let i = 0; i < 8; i += 1) {
      const p = await create(ws.secretKey);
      for (const name of ['a.pdf', 'b.pdf']) {
        await http(t.api.baseUrl, 'POST', `${PRODUCTS}/${p.id}/files`, { key: ws.secretKey, body: { fileName: name, fileSize: 10 } });
      }
    }
    const page = (await http<Page>(t.api.baseUrl, 'GET', PRODUCTS, { key: ws.secretKey })).body.data;
    expect(page).toHaveLength(9);
    expect(page.map((p) => p.files.length)).toEqual([2, 2, 2, 2, 2, 2, 2, 2, 1]);
    expect(await statementsFor()).toBe(withOne);
    expect(withOne).toBe(1);
  });
});

describe('publishable keys (public catalogue)', () => {
  it('list and retrieve only published products, without file storage keys', async () => {
    const ws = await t.ctx.createWorkspace();
    const shown = await create(ws.secretKey, { ...digital, name: 'Shown', published: true });
    const hidden = await create(ws.secretKey, { ...digital, name: 'Hidden' });
    const file = await http<{ data: { id: string; storageKey: string } }>(t.api.baseUrl, 'POST', `${PRODUCTS}/${shown.id}/files`, {
      key: ws.secretKey,
      body: { fileName: 'book.pdf', fileSize: 1234, mimeType: 'application/pdf' },
    });
    expect(file.body.data.storageKey).toEqual(expect.any(String));

    const list = await http<Page>(t.api.baseUrl, 'GET', PRODUCTS, { key: ws.publishableKey });
    expect(list.status).toBe(200);
    expect(list.body.data.map((p) => p.id)).toEqual([shown.id]);
    expect((await http<Page>(t.api.baseUrl, 'GET', `${PRODUCTS}?published=false`, { key: ws.publishableKey })).body.data).toEqual([]);

    const one = await http<{ data: ProductDto }>(t.api.baseUrl, 'GET', `${PRODUCTS}/${shown.id}`, { key: ws.publishableKey });
    expect(one.status).toBe(200);
    expect(one.body.data.files).toEqual([{ id: file.body.data.id, accountId: ws.accountId, productId: shown.id, fileName: 'book.pdf', fileSize: 1234, mimeType: 'application/pdf', createdAt: expect.any(String) }]);
    expect(JSON.stringify(list.body)).not.toContain('storageKey');
    expect(JSON.stringify(one.body)).not.toContain(file.body.data.storageKey);
    expectError(await http(t.api.baseUrl, 'GET', `${PRODUCTS}/${hidden.id}`, { key: ws.publishableKey }), 404, 'RESOURCE_NOT_FOUND');
  });

  it.each([
    ['PATCH', '', { name: 'x' }],
    ['DELETE', '', undefined],
    ['POST', '/ai-generate', undefined],
    ['POST', '/files', { fileName: 'a.pdf', fileSize: 10 }],
    ['DELETE', '/files/file_01JD4X7V1QZ8N6Y3K2M5P9R0TS', undefined],
  ])('answer 403 FORBIDDEN to %s %s and write nothing', async (method, suffix, body) => {
    const ws = await t.ctx.createWorkspace();
    const product = await create(ws.secretKey, { ...digital, published: true });
    const before = await snapshot(ws.accountId);
    expectError(await http(t.api.baseUrl, method, `${PRODUCTS}/${product.id}${suffix}`, { key: ws.publishableKey, body }), 403, 'FORBIDDEN');
    await expectNothingWritten(ws.accountId, before);
  });
});

describe('GET /v1/storefront/products/:id', () => {
  it('retrieves the product; another workspace, the other environment or an unknown id is 404', async () => {
    const { ws, other, product, live } = await productsToProbe();
    const res = await http<{ data: ProductDto }>(t.api.baseUrl, 'GET', `${PRODUCTS}/${product.id}`, { key: ws.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(product);
    expectError(await http(t.api.baseUrl, 'GET', `${PRODUCTS}/${product.id}`, { key: other.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'GET', `${PRODUCTS}/${live.id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'GET', `${PRODUCTS}/prod_nope`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('PATCH /v1/storefront/products/:id', () => {
  it('updates the given fields, replaces metadata whole, and emits service.product.updated.v1 with the returned object', async () => {
    const ws = await t.ctx.createWorkspace();
    const product = await create(ws.secretKey, { ...digital, description: 'old', metadata: { a: '1', b: '2' }, tags: ['x'] });
    const res = await http<{ data: ProductDto }>(t.api.baseUrl, 'PATCH', `${PRODUCTS}/${product.id}`, {
      key: ws.secretKey,
      body: { name: 'New name', price: 99_000, published: true, description: null, metadata: { c: '3' }, tags: [], brand: 'Acme', maxActivations: 5 },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      ...product,
      name: 'New name',
      price: 99_000,
      published: true,
      description: null,
      metadata: { c: '3' },
      tags: [],
      brand: 'Acme',
      maxActivations: 5,
      updatedAt: expect.any(String),
    });
    expect(res.body.data.slug).toBe(product.slug);
    const row = await Product.findByPk(product.id);
    expect(row).toMatchObject({ name: 'New name', price: 99_000, published: true, description: null, metadata: { c: '3' } });
    const events = await Event.findAll({ where: { accountId: ws.accountId, type: 'service.product.updated.v1' } });
    expect(events.map((e) => e.data)).toEqual([res.body.data]);
  });

  it('emits service.product.updated.v1 for a no-op PATCH too', async () => {
    const ws = await t.ctx.createWorkspace();
    const product = await create(ws.secretKey);
    const res = await http<{ data: ProductDto }>(t.api.baseUrl, 'PATCH', `${PRODUCTS}/${product.id}`, { key: ws.secretKey, body: { name: product.name } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(product);
    const events = await Event.findAll({ where: { accountId: ws.accountId, type: 'service.product.updated.v1' } });
    expect(events.map((e) => e.data)).toEqual([product]);
  });

  describe('refuses bad input with 400 VALIDATION_ERROR naming the field, changing nothing', () => {
    const cases: Array<[string, Record<string, unknown>, string | undefined]> = [
      ['slug (not patchable)', { slug: 'new-slug' }, 'slug'],
      ['type (not patchable)', { type: 'physical' }, 'type'],
      ['currency (not patchable)', { currency: 'USD' }, 'currency'],
      ['unknown field', { colour: 'red' }, 'colour'],
      ['archived (dashboard only)', { archived: false }, 'archived'],
      ['zero price', { price: 0 }, 'price'],
      ['fractional price', { price: 1.5 }, 'price'],
      ['null price', { price: null }, 'price'],
      ['empty name', { name: '' }, 'name'],
      ['null name', { name: null }, 'name'],
      ['metadata value not a string', { metadata: { a: 2 } }, 'metadata.a'],
      ['null metadata', { metadata: null }, 'metadata'],
      ['thumbnail not a URL', { thumbnail: 'ftp://x' }, 'thumbnail'],
      ['published not boolean', { published: 1 }, 'published'],
      ['empty body', {}, undefined],
    ];
    it.each(cases)('%s', async (_label, body, field) => {
      const ws = await t.ctx.createWorkspace();
      const product = await create(ws.secretKey);
      const before = await snapshot(ws.accountId);
      const res = await http(t.api.baseUrl, 'PATCH', `${PRODUCTS}/${product.id}`, { key: ws.secretKey, body });
      expectError(res, 400, 'VALIDATION_ERROR');
      if (field) expectNamesField(res, field);
      await expectNothingWritten(ws.accountId, before);
    });
  });

  it('answers 404 for another workspace, the other environment and an archived product, changing nothing', async () => {
    const { ws, other, product, live, archived } = await productsToProbe();
    const before = await snapshot(ws.accountId);
    const patch = (key: string, id: string) => http(t.api.baseUrl, 'PATCH', `${PRODUCTS}/${id}`, { key, body: { name: 'hijack', published: true } });
    expectError(await patch(other.secretKey, product.id), 404, 'RESOURCE_NOT_FOUND');
    expectError(await patch(ws.secretKey, live.id), 404, 'RESOURCE_NOT_FOUND');
    expectError(await patch(ws.secretKey, archived.id), 404, 'RESOURCE_NOT_FOUND');
    await expectNothingWritten(ws.accountId, before);
  });
});

describe('DELETE /v1/storefront/products/:id', () => {
  it('archives: 204, row kept archived and unpublished, hidden from the list, still retrievable, event { id, accountId }', async () => {
    const ws = await t.ctx.createWorkspace();
    const product = await create(ws.secretKey, { ...digital, published: true });
    const res = await http(t.api.baseUrl, 'DELETE', `${PRODUCTS}/${product.id}`, { key: ws.secretKey });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await Product.findByPk(product.id)).toMatchObject({ archived: true, published: false });
    expect((await http<Page>(t.api.baseUrl, 'GET', PRODUCTS, { key: ws.secretKey })).body.data).toEqual([]);
    const retrieved = await http<{ data: ProductDto }>(t.api.baseUrl, 'GET', `${PRODUCTS}/${product.id}`, { key: ws.secretKey });
    expect(retrieved.body.data).toMatchObject({ id: product.id, archived: true, published: false });
    expectError(await http(t.api.baseUrl, 'GET', `${PRODUCTS}/${product.id}`, { key: ws.publishableKey }), 404, 'RESOURCE_NOT_FOUND');
    const events = await Event.findAll({ where: { accountId: ws.accountId, type: 'service.product.archived.v1' } });
    expect(events.map((e) => e.data)).toEqual([{ id: product.id, accountId: ws.accountId }]);

    expectError(await http(t.api.baseUrl, 'DELETE', `${PRODUCTS}/${product.id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expect(await Event.count({ where: { accountId: ws.accountId, type: 'service.product.archived.v1' } })).toBe(1);
  });

  it('answers 404 for another workspace and for the other environment, changing nothing', async () => {
    const { ws, other, product, live } = await productsToProbe();
    const before = await snapshot(ws.accountId);
    expectError(await http(t.api.baseUrl, 'DELETE', `${PRODUCTS}/${product.id}`, { key: other.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'DELETE', `${PRODUCTS}/${live.id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    await expectNothingWritten(ws.accountId, before);
  });
});

describe('AI generation', () => {
  const runsOf = (accountId: string) => t.ctx.sequelize.query(`SELECT * FROM ai_generation_runs WHERE account_id = :accountId`, { replacements: { accountId }, type: 'SELECT' });

  const useUpAiQuota = (accountId: string, productId: string) =>
    insertAiRuns(t.ctx.sequelize, { accountId }, productId, PLAN_LIMITS.free.aiGenerationsPerMonth);

  it('create with aiGenerate:true marks the product generating and records one run in the same transaction', async () => {
    const ws = await t.ctx.createWorkspace();
    const product = await create(ws.secretKey, { ...digital, aiGenerate: true });
    expect(product).toMatchObject({ aiGenerated: true, aiStatus: 'generating' });
    expect(await runsOf(ws.accountId)).toHaveLength(1);
    const [event] = await Event.findAll({ where: { accountId: ws.accountId, type: 'service.product.created.v1' } });
    expect(event!.data).toEqual(product);
  });

  it('create with aiGenerate:true past the monthly AI quota is refused whole: 403 QUOTA_EXCEEDED, no product, no event', async () => {
    const ws = await t.ctx.createWorkspace();
    const existing = await create(ws.secretKey);
    await useUpAiQuota(ws.accountId, existing.id);
    const before = await snapshot(ws.accountId);
    const runs = (await runsOf(ws.accountId)).length;
    expectError(await http(t.api.baseUrl, 'POST', PRODUCTS, { key: ws.secretKey, body: { ...digital, name: 'With AI', aiGenerate: true } }), 403, 'QUOTA_EXCEEDED');
    await expectNothingWritten(ws.accountId, before);
    expect(await runsOf(ws.accountId)).toHaveLength(runs);
  });

  it('concurrent creates with aiGenerate:true all succeed, recording one run each', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'pro' });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => http(t.api.baseUrl, 'POST', PRODUCTS, { key: ws.secretKey, body: { ...digital, name: `AI ${i}`, aiGenerate: true } })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(await runsOf(ws.accountId)).toHaveLength(20);
  });

  it('POST /:id/ai-generate answers 202 with a message saying whether a run started or one is already running', async () => {
    const ws = await t.ctx.createWorkspace();
    const product = await create(ws.secretKey);
    const first = await http<{ data: { message: string } }>(t.api.baseUrl, 'POST', `${PRODUCTS}/${product.id}/ai-generate`, { key: ws.secretKey });
    expect(first.status).toBe(202);
    expect(first.body.data).toEqual({ message: expect.stringMatching(/started/) });
    expect(await Product.findByPk(product.id)).toMatchObject({ aiStatus: 'generating', aiGenerated: true });
    const second = await http<{ data: { message: string } }>(t.api.baseUrl, 'POST', `${PRODUCTS}/${product.id}/ai-generate`, { key: ws.secretKey });
    expect(second.status).toBe(202);
    expect(second.body.data.message).toMatch(/already running/);
    expect(await runsOf(ws.accountId)).toHaveLength(1);
    const handle = t.ctx.temporal.workflow.getHandle(`ai-generation:${product.id}`);
    expect((await handle.describe()).workflowId).toBe(`ai-generation:${product.id}`);
  });

  it('POST /:id/ai-generate past the monthly quota is 403 QUOTA_EXCEEDED and changes nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const product = await create(ws.secretKey);
    await useUpAiQuota(ws.accountId, product.id);
    const before = await snapshot(ws.accountId);
    expectError(await http(t.api.baseUrl, 'POST', `${PRODUCTS}/${product.id}/ai-generate`, { key: ws.secretKey }), 403, 'QUOTA_EXCEEDED');
    await expectNothingWritten(ws.accountId, before);
  });

  it('POST /:id/ai-generate is 404 for another workspace, the other environment or an archived product', async () => {
    const { ws, other, product, live, archived } = await productsToProbe();
    const before = await snapshot(ws.accountId);
    expectError(await http(t.api.baseUrl, 'POST', `${PRODUCTS}/${product.id}/ai-generate`, { key: other.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'POST', `${PRODUCTS}/${live.id}/ai-generate`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'POST', `${PRODUCTS}/${archived.id}/ai-generate`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    await expectNothingWritten(ws.accountId, before);
    expect(await runsOf(ws.accountId)).toHaveLength(0);
  });
});

describe('events are scoped', () => {
  it('writes product events only for the calling workspace and environment', async () => {
    const ws = await t.ctx.createWorkspace();
    await create(ws.liveSecretKey);
    const events = await Event.findAll({ where: { accountId: ws.accountId, type: { [Op.like]: 'service.product.%' } } });
    expect(events.map((e) => e.environment)).toEqual(['live']);
  });
});

describe('OpenAPI', () => {
  it('documents the product routes, with the upload as JSON or multipart/form-data', async () => {
    type Operation = { requestBody?: { content: Record<string, unknown> }; responses: Record<string, unknown> };
    const doc = (await http<{ paths: Record<string, Record<string, Operation>> }>(t.api.baseUrl, 'GET', '/api/openapi.json')).body;
    expect(Object.keys(doc.paths['/v1/storefront/products']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v1/storefront/products/{id}']!).sort()).toEqual(['delete', 'get', 'patch']);
    expect(Object.keys(doc.paths['/v1/storefront/products/{id}/ai-generate']!)).toEqual(['post']);
    expect(Object.keys(doc.paths['/v1/storefront/products/{id}/files/{fileId}']!)).toEqual(['delete']);
    const upload = doc.paths['/v1/storefront/products/{id}/files']!.post!;
    expect(Object.keys(upload.requestBody!.content).sort()).toEqual(['application/json', 'multipart/form-data']);
    expect(Object.keys(upload.responses)).toContain('201');
  });
});
