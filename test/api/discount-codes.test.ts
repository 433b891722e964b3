import { DiscountCode } from '../../db/models';
import { encodeCursor } from '../../db/cursor';
import { newId } from '../../lib/ids';
import { http, useTestApi, type HttpResult } from '../helpers/context';
import { createDiscountCode, createProduct, discountSnapshot, DISCOUNT_CODES, type DiscountCodeDto } from '../helpers/discounts';
import { expectError } from '../helpers/expect';

const t = useTestApi();

type Page = { data: DiscountCodeDto[]; meta: { page: { nextCursor: string | null } } };

function expectNamesField(res: HttpResult, field: string) {
  const details = (res.body.error as { details?: Array<{ field?: string }> }).details ?? [];
  expect(details.map((d) => d.field)).toContain(field);
}

const base = { code: 'SAVE10', type: 'percent', value: 10, currency: 'IDR' };

describe('POST /v1/discount-codes', () => {
  it('creates a code with every field, and defaults the rest (scope cart, active, not public, usesTotal 0)', async () => {
    const ws = await t.ctx.createWorkspace();
    const productId = await createProduct(t.api.baseUrl, ws.secretKey);
    const res = await http<{ data: DiscountCodeDto }>(t.api.baseUrl, 'POST', DISCOUNT_CODES, {
      key: ws.secretKey,
      body: {
        code: 'Launch_2030-A',
        description: 'Launch week',
        type: 'fixed',
        value: 2_500_000,
        currency: 'USD',
        scope: 'products',
        productIds: [productId],
        minPurchaseAmount: 0,
        maxUsesTotal: 100,
        maxUsesPerCustomer: 1,
        startsAt: '2030-01-01T00:00:00+07:00',
        expiresAt: '2030-02-01T00:00:00Z',
        active: false,
        public: true,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^disc_[0-9A-Z]{26}$/),
      accountId: ws.accountId,
      code: 'Launch_2030-A',
      description: 'Launch week',
      type: 'fixed',
      value: 2_500_000,
      currency: 'USD',
      scope: 'products',
      productIds: [productId],
      tagFilter: null,
      minPurchaseAmount: 0,
      maxUsesTotal: 100,
      maxUsesPerCustomer: 1,
      usesTotal: 0,
      startsAt: '2029-12-31T17:00:00.000Z',
      expiresAt: '2030-02-01T00:00:00.000Z',
      active: false,
      public: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const minimal = await createDiscountCode(t.api.baseUrl, ws.secretKey, { code: 'MIN', type: 'shipping_percent', value: 100 });
    expect(minimal).toMatchObject({
      scope: 'cart',
      productIds: null,
      tagFilter: null,
      description: null,
      minPurchaseAmount: null,
      maxUsesTotal: null,
      maxUsesPerCustomer: null,
      startsAt: null,
      expiresAt: null,
      active: true,
      public: false,
      usesTotal: 0,
    });
  });

  const refusals: Array<[string, Record<string, unknown>, string]> = [
    ['no code', { code: undefined }, 'code'],
    ['an empty code', { code: '' }, 'code'],
    ['a code over 50 characters', { code: 'A'.repeat(51) }, 'code'],
    ['a code with a space', { code: 'SAVE 10' }, 'code'],
    ['a code with punctuation', { code: 'SAVE.10' }, 'code'],
    ['a description over 500', { description: 'x'.repeat(501) }, 'description'],
    ['no type', { type: undefined }, 'type'],
    ['an unknown type', { type: 'bogo' }, 'type'],
    ['no value', { value: undefined }, 'value'],
    ['value 0', { value: 0 }, 'value'],
    ['a percent over 100', { value: 101 }, 'value'],
    ['a shipping percent over 100', { type: 'shipping_percent', value: 101 }, 'value'],
    ['a fractional value', { type: 'fixed', value: 1.5 }, 'value'],
    ['a value as a string', { value: '10' }, 'value'],
    ['no currency', { currency: undefined }, 'currency'],
    ['a currency products do not use', { currency: 'EUR' }, 'currency'],
    ['a lowercase currency', { currency: 'usd' }, 'currency'],
    ['an unknown scope', { scope: 'everything' }, 'scope'],
    ['scope products without productIds', { scope: 'products' }, 'productIds'],
    ['scope products with empty productIds', { scope: 'products', productIds: [] }, 'productIds'],
    ['scope tags without tagFilter', { scope: 'tags' }, 'tagFilter'],
    ['scope tags with an empty tagFilter', { scope: 'tags', tagFilter: [] }, 'tagFilter'],
    ['productIds with scope cart', { productIds: ['prod_x'] }, 'productIds'],
    ['tagFilter with scope cart', { tagFilter: ['sale'] }, 'tagFilter'],
    ['a negative minPurchaseAmount', { minPurchaseAmount: -1 }, 'minPurchaseAmount'],
    ['maxUsesTotal 0', { maxUsesTotal: 0 }, 'maxUsesTotal'],
    ['maxUsesPerCustomer 0', { maxUsesPerCustomer: 0 }, 'maxUsesPerCustomer'],
    ['startsAt equal to expiresAt', { startsAt: '2030-01-01T00:00:00Z', expiresAt: '2030-01-01T07:00:00+07:00' }, 'expiresAt'],
    ['startsAt after expiresAt', { startsAt: '2030-02-01T00:00:00Z', expiresAt: '2030-01-01T00:00:00Z' }, 'expiresAt'],
    ['a date without offset', { startsAt: '2030-01-01T00:00:00' }, 'startsAt'],
    ['an unparseable date', { expiresAt: 'next week' }, 'expiresAt'],
    ['usesTotal (not settable)', { usesTotal: 5 }, 'usesTotal'],
    ['an id', { id: 'disc_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }, 'id'],
    ['an unknown field', { colour: 'red' }, 'colour'],
  ];

  it.each(refusals)('refuses %s with 400 VALIDATION_ERROR naming the field, writing nothing', async (_name, change, field) => {
    const ws = await t.ctx.createWorkspace();
    const before = await discountSnapshot(ws.accountId);
    const res = await http(t.api.baseUrl, 'POST', DISCOUNT_CODES, { key: ws.secretKey, body: { ...base, ...change } });
    expectError(res, 400, 'VALIDATION_ERROR');
    expectNamesField(res, field);
    expect(await discountSnapshot(ws.accountId)).toEqual(before);
  });

  it('accepts a fixed value above 100 and the bounds of every limit', async () => {
    const ws = await t.ctx.createWorkspace();
    await createDiscountCode(t.api.baseUrl, ws.secretKey, { code: 'A'.repeat(50), type: 'shipping_fixed', value: 1_000_000, description: 'x'.repeat(500) });
    await createDiscountCode(t.api.baseUrl, ws.secretKey, { code: 'Z', value: 100, maxUsesTotal: 1, maxUsesPerCustomer: 1 });
  });

  it('refuses productIds naming a product of another workspace, the other environment, an archived or unknown one, naming it', async () => {
    const ws = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    const own = await createProduct(t.api.baseUrl, ws.secretKey);
    const foreign = await createProduct(t.api.baseUrl, other.secretKey);
    const live = await createProduct(t.api.baseUrl, ws.liveSecretKey);
    const archived = await createProduct(t.api.baseUrl, ws.secretKey);
    await http(t.api.baseUrl, 'DELETE', `/api/v1/storefront/products/${archived}`, { key: ws.secretKey });
    const before = await discountSnapshot(ws.accountId);
    for (const [index, bad] of [foreign, live, archived, newId('prod')].entries()) {
      const res = await http<{ error: { message: string } }>(t.api.baseUrl, 'POST', DISCOUNT_CODES, {
        key: ws.secretKey,
        body: { ...base, code: `P${index}`, scope: 'products', productIds: [own, bad] },
      });
      expectError(res, 400, 'VALIDATION_ERROR');
      expectNamesField(res, 'productIds.1');
      expect(res.body.error.message).toContain(bad);
    }
    expect(await discountSnapshot(ws.accountId)).toEqual(before);
  });

  it('keeps codes unique per workspace and environment case-insensitively: 409 CODE_EXISTS, nothing written', async () => {
    const ws = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    await createDiscountCode(t.api.baseUrl, ws.secretKey, { code: 'SUMMER' });
    const before = await discountSnapshot(ws.accountId);
    for (const code of ['SUMMER', 'summer', 'Summer']) {
      expectError(await http(t.api.baseUrl, 'POST', DISCOUNT_CODES, { key: ws.secretKey, body: { ...base, code } }), 409, 'CODE_EXISTS');
    }
    expect(await discountSnapshot(ws.accountId)).toEqual(before);
    // Another workspace, and the other environment of the same one, have codes of their own.
    await createDiscountCode(t.api.baseUrl, other.secretKey, { code: 'summer' });
    await createDiscountCode(t.api.baseUrl, ws.liveSecretKey, { code: 'Summer' });
  });

  it('answers two concurrent creates of one code (in two cases) with exactly one 201 and one 409', async () => {
    const ws = await t.ctx.createWorkspace();
    for (let round = 0; round < 3; round += 1) {
      const results = await Promise.all(
        [`FLASH${round}`, `flash${round}`].map((code) => http(t.api.baseUrl, 'POST', DISCOUNT_CODES, { key: ws.secretKey, body: { ...base, code } })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      expectError(results.find((r) => r.status === 409)!, 409, 'CODE_EXISTS');
    }
    expect(await DiscountCode.count({ where: { accountId: ws.accountId } })).toBe(3);
  });

  it('refuses a publishable key with 403', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await http(t.api.baseUrl, 'POST', DISCOUNT_CODES, { key: ws.publishableKey, body: base }), 403, 'FORBIDDEN');
    expectError(await http(t.api.baseUrl, 'GET', DISCOUNT_CODES, { key: ws.publishableKey }), 403, 'FORBIDDEN');
  });
});

describe('GET /v1/discount-codes', () => {
  it('lists newest first in cursor pages, filters by active, and sees only its own workspace and environment', async () => {
    const ws = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    const created: DiscountCodeDto[] = [];
    for (let i = 0; i < 5; i += 1) created.push(await createDiscountCode(t.api.baseUrl, ws.secretKey, { code: `L${i}`, active: i % 2 === 0 }));
    await createDiscountCode(t.api.baseUrl, ws.liveSecretKey, { code: 'LIVE' });
    await createDiscountCode(t.api.baseUrl, other.secretKey, { code: 'OTHER' });

    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${cursor}` : '?limit=2';
      const page: HttpResult<Page> = await http<Page>(t.api.baseUrl, 'GET', `${DISCOUNT_CODES}${query}`, { key: ws.secretKey });
      expect(page.status).toBe(200);
      ids.push(...page.body.data.map((d) => d.id));
      cursor = page.body.meta.page.nextCursor;
    } while (cursor);
    expect(ids).toEqual(created.map((d) => d.id).reverse());

    const active = await http<Page>(t.api.baseUrl, 'GET', `${DISCOUNT_CODES}?active=true`, { key: ws.secretKey });
    expect(active.body.data.map((d) => d.code)).toEqual(['L4', 'L2', 'L0']);
    const inactive = await http<Page>(t.api.baseUrl, 'GET', `${DISCOUNT_CODES}?active=false`, { key: ws.secretKey });
    expect(inactive.body.data.map((d) => d.code)).toEqual(['L3', 'L1']);
  });

  it('refuses a bad active filter and a cursor of another resource with 400', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await http(t.api.baseUrl, 'GET', `${DISCOUNT_CODES}?active=yes`, { key: ws.secretKey }), 400, 'VALIDATION_ERROR');
    expectError(await http(t.api.baseUrl, 'GET', `${DISCOUNT_CODES}?cursor=${encodeCursor(newId('prod'))}`, { key: ws.secretKey }), 400, 'VALIDATION_ERROR');
  });
});

describe('GET, PATCH and DELETE /v1/discount-codes/:id', () => {
  it('answers 404 for another workspace, the other environment and an unknown id, changing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    const code = await createDiscountCode(t.api.baseUrl, ws.secretKey);
    const before = await discountSnapshot(ws.accountId);
    for (const [key, id] of [
      [other.secretKey, code.id],
      [ws.liveSecretKey, code.id],
      [ws.secretKey, newId('disc')],
    ] as const) {
      expectError(await http(t.api.baseUrl, 'GET', `${DISCOUNT_CODES}/${id}`, { key }), 404, 'RESOURCE_NOT_FOUND');
      expectError(await http(t.api.baseUrl, 'PATCH', `${DISCOUNT_CODES}/${id}`, { key, body: { value: 20 } }), 404, 'RESOURCE_NOT_FOUND');
      expectError(await http(t.api.baseUrl, 'DELETE', `${DISCOUNT_CODES}/${id}`, { key }), 404, 'RESOURCE_NOT_FOUND');
    }
    expect(await discountSnapshot(ws.accountId)).toEqual(before);
  });

  it('retrieves a code', async () => {
    const ws = await t.ctx.createWorkspace();
    const code = await createDiscountCode(t.api.baseUrl, ws.secretKey);
    const res = await http<{ data: DiscountCodeDto }>(t.api.baseUrl, 'GET', `${DISCOUNT_CODES}/${code.id}`, { key: ws.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(code);
  });

  it('patches every create field but code; nulls clear; the result is returned whole', async () => {
    const ws = await t.ctx.createWorkspace();
    const productId = await createProduct(t.api.baseUrl, ws.secretKey);
    const code = await createDiscountCode(t.api.baseUrl, ws.secretKey, { code: 'PATCHME', description: 'old', maxUsesTotal: 5 });
    const res = await http<{ data: DiscountCodeDto }>(t.api.baseUrl, 'PATCH', `${DISCOUNT_CODES}/${code.id}`, {
      key: ws.secretKey,
      body: {
        description: null,
        type: 'fixed',
        value: 5_000,
        currency: 'USD',
        scope: 'products',
        productIds: [productId],
        minPurchaseAmount: 10_000,
        maxUsesTotal: null,
        maxUsesPerCustomer: 2,
        startsAt: '2030-01-01T00:00:00Z',
        expiresAt: '2031-01-01T00:00:00Z',
        active: false,
        public: true,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: code.id,
      code: 'PATCHME',
      description: null,
      type: 'fixed',
      value: 5_000,
      currency: 'USD',
      scope: 'products',
      productIds: [productId],
      tagFilter: null,
      minPurchaseAmount: 10_000,
      maxUsesTotal: null,
      maxUsesPerCustomer: 2,
      usesTotal: 0,
      startsAt: '2030-01-01T00:00:00.000Z',
      expiresAt: '2031-01-01T00:00:00.000Z',
      active: false,
      public: true,
    });
    // Moving to another scope clears the list of the scope left behind.
    const tags = await http<{ data: DiscountCodeDto }>(t.api.baseUrl, 'PATCH', `${DISCOUNT_CODES}/${code.id}`, {
      key: ws.secretKey,
      body: { scope: 'tags', tagFilter: ['sale'] },
    });
    expect(tags.body.data).toMatchObject({ scope: 'tags', tagFilter: ['sale'], productIds: null });
  });

  const patchRefusals: Array<[string, Record<string, unknown>, string]> = [
    ['code', { code: 'OTHER' }, 'code'],
    ['usesTotal', { usesTotal: 0 }, 'usesTotal'],
    ['an unknown field', { colour: 'red' }, 'colour'],
    ['a percent type over the stored value of 500', { type: 'percent' }, 'value'],
    ['scope products without productIds', { scope: 'products' }, 'productIds'],
    ['tagFilter while the scope stays cart', { tagFilter: ['x'] }, 'tagFilter'],
    ['expiresAt before the stored startsAt', { expiresAt: '2029-01-01T00:00:00Z' }, 'expiresAt'],
    ['value 0', { value: 0 }, 'value'],
    ['a foreign product', { scope: 'products', productIds: [newId('prod')] }, 'productIds.0'],
  ];

  it.each(patchRefusals)('refuses a PATCH with %s (400, nothing written)', async (_name, body, field) => {
    const ws = await t.ctx.createWorkspace();
    const code = await createDiscountCode(t.api.baseUrl, ws.secretKey, { type: 'fixed', value: 500, startsAt: '2030-01-01T00:00:00Z' });
    const before = await discountSnapshot(ws.accountId);
    const res = await http(t.api.baseUrl, 'PATCH', `${DISCOUNT_CODES}/${code.id}`, { key: ws.secretKey, body });
    expectError(res, 400, 'VALIDATION_ERROR');
    expectNamesField(res, field);
    expect(await discountSnapshot(ws.accountId)).toEqual(before);
  });

  it('refuses an empty PATCH body with 400', async () => {
    const ws = await t.ctx.createWorkspace();
    const code = await createDiscountCode(t.api.baseUrl, ws.secretKey);
    const before = await discountSnapshot(ws.accountId);
    expectError(await http(t.api.baseUrl, 'PATCH', `${DISCOUNT_CODES}/${code.id}`, { key: ws.secretKey, body: {} }), 400, 'VALIDATION_ERROR');
    expect(await discountSnapshot(ws.accountId)).toEqual(before);
  });

  it('DELETE deactivates (200 with the code, active false), is repeatable, keeps the code listed and its name taken', async () => {
    const ws = await t.ctx.createWorkspace();
    const code = await createDiscountCode(t.api.baseUrl, ws.secretKey, { code: 'GONE' });
    for (let i = 0; i < 2; i += 1) {
      const res = await http<{ data: DiscountCodeDto }>(t.api.baseUrl, 'DELETE', `${DISCOUNT_CODES}/${code.id}`, { key: ws.secretKey });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: code.id, code: 'GONE', active: false });
    }
    const inactive = await http<Page>(t.api.baseUrl, 'GET', `${DISCOUNT_CODES}?active=false`, { key: ws.secretKey });
    expect(inactive.body.data.map((d) => d.id)).toEqual([code.id]);
    expectError(await http(t.api.baseUrl, 'POST', DISCOUNT_CODES, { key: ws.secretKey, body: { ...base, code: 'gone' } }), 409, 'CODE_EXISTS');
    const reactivated = await http<{ data: DiscountCodeDto }>(t.api.baseUrl, 'PATCH', `${DISCOUNT_CODES}/${code.id}`, { key: ws.secretKey, body: { active: true } });
    expect(reactivated.body.data.active).toBe(true);
  });
});
