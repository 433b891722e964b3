import { QueryTypes } from 'sequelize';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { Variant } from '../../db/models';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { adjustStock, createVariant, createWarehouse, INVENTORY, inventorySnapshot, switchFulfillment, type VariantDto } from '../helpers/inventory';
import { createProduct } from '../helpers/storefront';

const t = useTestApi();
const VARIANTS = `${INVENTORY}/variants`;
const PRODUCTS = '/api/v1/storefront/products';

type Json = Record<string, unknown>;

async function workspace() {
  const ws = await t.ctx.createWorkspace();
  await switchFulfillment(t.api.baseUrl, ws.secretKey, true);
  return ws;
}

/** A physical USD product priced 120. */
const mug = (key: string, body: Json = {}) => createProduct(t.api.baseUrl, key, { name: 'Mug', price: 120, type: 'physical', weight: 300, ...body });

/** The workspace's events after `afterId` (all when undefined), oldest first. */
async function eventsOf(accountId: string, afterId = ''): Promise<Array<{ id: string; type: string; data: Json }>> {
  return t.ctx.sequelize.query(`SELECT id, type, data FROM events WHERE account_id = :accountId AND id > :afterId ORDER BY id`, {
    type: QueryTypes.SELECT,
    replacements: { accountId, afterId },
  });
}

const lastEventId = async (accountId: string) => (await eventsOf(accountId)).at(-1)?.id ?? '';

async function defaultsOf(productId: string): Promise<string[]> {
  return (await Variant.findAll({ where: { productId, isDefault: true }, attributes: ['id'] })).map((v) => v.id);
}

describe('POST /v1/inventory/variants', () => {
  it('creates the first variant as the default, sets hasVariants, and emits variant.created then product.updated', async () => {
    const ws = await workspace();
    const product = await mug(ws.secretKey);
    expect(product.hasVariants).toBe(false);
    const since = await lastEventId(ws.accountId);
    const res = await http<{ data: VariantDto }>(t.api.baseUrl, 'POST', VARIANTS, {
      key: ws.secretKey,
      body: { productId: product.id, name: ' Blue / M ', sku: 'MUG-BLU-M', priceDelta: -20, costPrice: 4500, lowStockThreshold: 3, isDefault: false },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^var_[0-9A-Z]{26}$/),
      accountId: ws.accountId,
      productId: product.id,
      sku: 'MUG-BLU-M',
      name: 'Blue / M',
      priceDelta: -20,
      price: 100,
      priceCents: 10000,
      currency: 'USD',
      costPrice: 4500,
      lowStockThreshold: 3,
      isDefault: true,
      archived: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const retrieved = await http<{ data: Json }>(t.api.baseUrl, 'GET', `${PRODUCTS}/${product.id}`, { key: ws.secretKey });
    expect(retrieved.body.data.hasVariants).toBe(true);
    const events = await eventsOf(ws.accountId, since);
    expect(events.map((e) => e.type)).toEqual(['service.variant.created.v1', 'service.product.updated.v1']);
    expect(events[0]!.data).toEqual(res.body.data);
    expect(events[1]!.data).toEqual(retrieved.body.data);
  });

  it('a later variant is not the default and emits no product event; with isDefault: true it takes the default over', async () => {
    const ws = await workspace();
    const product = await mug(ws.secretKey);
    const first = await createVariant(t.api.baseUrl, ws.secretKey, product.id, { name: 'Blue' });
    const since = await lastEventId(ws.accountId);
    const second = await createVariant(t.api.baseUrl, ws.secretKey, product.id, { name: 'Red' });
    expect(second.isDefault).toBe(false);
    expect((await eventsOf(ws.accountId, since)).map((e) => e.type)).toEqual(['service.variant.created.v1']);

    const before = await lastEventId(ws.accountId);
    const third = await createVariant(t.api.baseUrl, ws.secretKey, product.id, { name: 'Green', isDefault: true });
    expect(third.isDefault).toBe(true);
    expect(await defaultsOf(product.id)).toEqual([third.id]);
    const events = await eventsOf(ws.accountId, before);
    expect(events.map((e) => [e.type, e.data.id, e.data.isDefault])).toEqual([
      ['service.variant.updated.v1', first.id, false],
      ['service.variant.created.v1', third.id, true],
    ]);
  });

  it('resolves IDR prices: priceCents equals the price (the rupiah has no smaller unit), and a resolved price of exactly 1 is allowed', async () => {
    const ws = await workspace();
    const product = await mug(ws.secretKey, { price: 150_000, currency: 'IDR' });
    const variant = await createVariant(t.api.baseUrl, ws.secretKey, product.id, { priceDelta: 25_000 });
    expect([variant.price, variant.priceCents, variant.currency]).toEqual([175_000, 175_000, 'IDR']);
    const cheapest = await createVariant(t.api.baseUrl, ws.secretKey, product.id, { priceDelta: -149_999 });
    expect(cheapest.price).toBe(1);
  });

  const refusals: Array<[string, Json, string]> = [
    ['no productId', { productId: undefined }, 'productId'],
    ['no name', { name: undefined }, 'name'],
    ['an empty name', { name: ' ' }, 'name'],
    ['a name over 200', { name: 'x'.repeat(201) }, 'name'],
    ['a sku over 50', { sku: 'x'.repeat(51) }, 'sku'],
    ['a fractional priceDelta', { priceDelta: 1.5 }, 'priceDelta'],
    ['a priceDelta as a string', { priceDelta: '5' }, 'priceDelta'],
    ['a resolved price of 0', { priceDelta: -120 }, 'priceDelta'],
    ['a resolved price below 0', { priceDelta: -500 }, 'priceDelta'],
    ['a negative costPrice', { costPrice: -1 }, 'costPrice'],
    ['a negative lowStockThreshold', { lowStockThreshold: -1 }, 'lowStockThreshold'],
    ['archived (not settable)', { archived: true }, 'archived'],
    ['an unknown field', { color: 'blue' }, 'color'],
  ];

  it.each(refusals)('refuses %s with 400 VALIDATION_ERROR naming the field, writing nothing', async (_name, change, field) => {
    const ws = await workspace();
    const product = await mug(ws.secretKey);
    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    const res = await http(t.api.baseUrl, 'POST', VARIANTS, { key: ws.secretKey, body: { productId: product.id, name: 'Blue', ...change } });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(((res.body.error as { details?: Array<{ field?: string }> }).details ?? []).map((d) => d.field)).toContain(field);
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  const foreignProducts: Array<[string, (ws: CreatedWorkspace) => Promise<string>]> = [
    ['of another workspace', async () => (await mug((await workspace()).secretKey)).id],
    ['of the other environment', async (ws) => (await mug(ws.liveSecretKey)).id],
    [
      'that is archived',
      async (ws) => {
        const archived = await mug(ws.secretKey);
        expect((await http(t.api.baseUrl, 'DELETE', `${PRODUCTS}/${archived.id}`, { key: ws.secretKey })).status).toBe(204);
        return archived.id;
      },
    ],
    ['that does not exist', async () => 'prod_01JD4X7V1QZ8N6Y3K2M5P9R0TS'],
  ];

  it.each(foreignProducts)('refuses a productId %s with 400 VALIDATION_ERROR, writing nothing', async (_name, productIdOf) => {
    const ws = await workspace();
    const productId = await productIdOf(ws);
    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    const res = await http(t.api.baseUrl, 'POST', VARIANTS, { key: ws.secretKey, body: { productId, name: 'Blue' } });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect((res.body.error as { details: Array<{ field: string }> }).details[0]!.field).toBe('productId');
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });
});

describe('GET /v1/inventory/variants and /:id', () => {
  it('lists active variants newest first with a productId filter; retrieve shows archived ones too', async () => {
    const ws = await workspace();
    const a = await mug(ws.secretKey);
    const b = await mug(ws.secretKey, { name: 'Plate' });
    const a1 = await createVariant(t.api.baseUrl, ws.secretKey, a.id, { name: 'A1' });
    const a2 = await createVariant(t.api.baseUrl, ws.secretKey, a.id, { name: 'A2' });
    const b1 = await createVariant(t.api.baseUrl, ws.secretKey, b.id, { name: 'B1' });
    await http(t.api.baseUrl, 'DELETE', `${VARIANTS}/${a2.id}`, { key: ws.secretKey });

    const all = await http<{ data: VariantDto[] }>(t.api.baseUrl, 'GET', VARIANTS, { key: ws.secretKey });
    expect(all.body.data.map((v) => v.id)).toEqual([b1.id, a1.id]);
    const ofA = await http<{ data: VariantDto[]; meta: { page: { nextCursor: string | null } } }>(t.api.baseUrl, 'GET', `${VARIANTS}?productId=${a.id}&limit=1`, {
      key: ws.secretKey,
    });
    expect(ofA.body.data).toEqual([a1]);
    expect(ofA.body.meta.page.nextCursor).toBeNull();

    const archived = await http<{ data: VariantDto }>(t.api.baseUrl, 'GET', `${VARIANTS}/${a2.id}`, { key: ws.secretKey });
    expect(archived.body.data).toMatchObject({ id: a2.id, archived: true });
    expectError(await http(t.api.baseUrl, 'GET', `${VARIANTS}/var_01JD4X7V1QZ8N6Y3K2M5P9R0TS`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('PATCH /v1/inventory/variants/:id', () => {
  it('updates fields and emits service.variant.updated.v1 with the exact resolved priceCents, a no-op included', async () => {
    const ws = await workspace();
    const product = await mug(ws.secretKey);
    const variant = await createVariant(t.api.baseUrl, ws.secretKey, product.id, { sku: 'OLD', costPrice: 10 });
    const since = await lastEventId(ws.accountId);
    const res = await http<{ data: VariantDto }>(t.api.baseUrl, 'PATCH', `${VARIANTS}/${variant.id}`, {
      key: ws.secretKey,
      body: { name: 'Navy / M', sku: null, priceDelta: 35, costPrice: null, lowStockThreshold: 2 },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Navy / M', sku: null, priceDelta: 35, price: 155, priceCents: 15500, costPrice: null, lowStockThreshold: 2 });
    const noop = await http<{ data: VariantDto }>(t.api.baseUrl, 'PATCH', `${VARIANTS}/${variant.id}`, { key: ws.secretKey, body: { priceDelta: 35 } });
    expect(noop.status).toBe(200);
    const events = await eventsOf(ws.accountId, since);
    expect(events.map((e) => [e.type, e.data.priceCents])).toEqual([
      ['service.variant.updated.v1', 15500],
      ['service.variant.updated.v1', 15500],
    ]);
    expect(events[0]!.data).toEqual(res.body.data);
  });

  it.each([
    ['productId (a variant stays with its product)', { productId: 'prod_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }, 400, 'VALIDATION_ERROR'],
    ['an empty body', {}, 400, 'VALIDATION_ERROR'],
    ['a resolved price below 1', { priceDelta: -120 }, 400, 'VALIDATION_ERROR'],
    ['a name over 200', { name: 'x'.repeat(201) }, 400, 'VALIDATION_ERROR'],
    ['isDefault: false on the default (exactly one per product)', { isDefault: false }, 409, 'INVALID_STATE'],
  ])('refuses %s, writing nothing', async (_name, body, status, code) => {
    const ws = await workspace();
    const product = await mug(ws.secretKey);
    const variant = await createVariant(t.api.baseUrl, ws.secretKey, product.id);
    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    expectError(await http(t.api.baseUrl, 'PATCH', `${VARIANTS}/${variant.id}`, { key: ws.secretKey, body }), status, code);
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('moves the default with isDefault: true, the demoted variant emitting its own update', async () => {
    const ws = await workspace();
    const product = await mug(ws.secretKey);
    const blue = await createVariant(t.api.baseUrl, ws.secretKey, product.id, { name: 'Blue' });
    const red = await createVariant(t.api.baseUrl, ws.secretKey, product.id, { name: 'Red' });
    const since = await lastEventId(ws.accountId);
    const res = await http<{ data: VariantDto }>(t.api.baseUrl, 'PATCH', `${VARIANTS}/${red.id}`, { key: ws.secretKey, body: { isDefault: true } });
    expect(res.body.data.isDefault).toBe(true);
    expect(await defaultsOf(product.id)).toEqual([red.id]);
    expect((await eventsOf(ws.accountId, since)).map((e) => [e.data.id, e.data.isDefault])).toEqual([
      [blue.id, false],
      [red.id, true],
    ]);
  });

  it('keeps exactly one default per product under concurrent isDefault PATCHes', async () => {
    const ws = await workspace();
    const product = await mug(ws.secretKey);
    const variants: VariantDto[] = [];
    for (let i = 0; i < 8; i += 1) variants.push(await createVariant(t.api.baseUrl, ws.secretKey, product.id, { name: `V${i}` }));
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.all(variants.map((v) => http(t.api.baseUrl, 'PATCH', `${VARIANTS}/${v.id}`, { key: ws.secretKey, body: { isDefault: true } })));
      expect(answers.map((r) => r.status)).toEqual(variants.map(() => 200));
      expect(await defaultsOf(product.id)).toHaveLength(1);
    }
  });

  it('answers 404 RESOURCE_NOT_FOUND for an archived or missing variant', async () => {
    const ws = await workspace();
    const product = await mug(ws.secretKey);
    await createVariant(t.api.baseUrl, ws.secretKey, product.id);
    const spare = await createVariant(t.api.baseUrl, ws.secretKey, product.id);
    await http(t.api.baseUrl, 'DELETE', `${VARIANTS}/${spare.id}`, { key: ws.secretKey });
    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    expectError(await http(t.api.baseUrl, 'PATCH', `${VARIANTS}/${spare.id}`, { key: ws.secretKey, body: { name: 'Back' } }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'PATCH', `${VARIANTS}/var_01JD4X7V1QZ8N6Y3K2M5P9R0TS`, { key: ws.secretKey, body: { name: 'X' } }), 404, 'RESOURCE_NOT_FOUND');
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });
});

describe('DELETE /v1/inventory/variants/:id', () => {
  it('archives a variant: answered archived, out of the list, service.variant.archived.v1 with { id, productId } exactly', async () => {
    const ws = await workspace();
    const product = await mug(ws.secretKey);
    await createVariant(t.api.baseUrl, ws.secretKey, product.id, { name: 'Blue' });
    const red = await createVariant(t.api.baseUrl, ws.secretKey, product.id, { name: 'Red' });
    const since = await lastEventId(ws.accountId);
    const res = await http<{ data: VariantDto }>(t.api.baseUrl, 'DELETE', `${VARIANTS}/${red.id}`, { key: ws.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: red.id, archived: true, isDefault: false });
    const events = await eventsOf(ws.accountId, since);
    expect(events.map((e) => [e.type, e.data])).toEqual([['service.variant.archived.v1', { id: red.id, productId: product.id }]]);
    const listed = await http<{ data: VariantDto[] }>(t.api.baseUrl, 'GET', `${VARIANTS}?productId=${product.id}`, { key: ws.secretKey });
    expect(listed.body.data.map((v) => v.id)).not.toContain(red.id);
    expectError(await http(t.api.baseUrl, 'DELETE', `${VARIANTS}/${red.id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
  });

  it('refuses to archive the default variant with 409 INVALID_STATE, writing nothing', async () => {
    const ws = await workspace();
    const product = await mug(ws.secretKey);
    const blue = await createVariant(t.api.baseUrl, ws.secretKey, product.id);
    await createVariant(t.api.baseUrl, ws.secretKey, product.id);
    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    expectError(await http(t.api.baseUrl, 'DELETE', `${VARIANTS}/${blue.id}`, { key: ws.secretKey }), 409, 'INVALID_STATE');
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('refuses adjustments of an archived variant (409 INVALID_STATE) and keeps its stock readable', async () => {
    const ws = await workspace();
    const product = await mug(ws.secretKey);
    const warehouse = await createWarehouse(t.api.baseUrl, ws.secretKey);
    await createVariant(t.api.baseUrl, ws.secretKey, product.id);
    const red = await createVariant(t.api.baseUrl, ws.secretKey, product.id);
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: red.id, warehouseId: warehouse.id, delta: 2 });
    await http(t.api.baseUrl, 'DELETE', `${VARIANTS}/${red.id}`, { key: ws.secretKey });
    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    const res = await http(t.api.baseUrl, 'POST', `${INVENTORY}/adjust`, { key: ws.secretKey, body: { variantId: red.id, warehouseId: warehouse.id, delta: 1, reason: 'manual_adjust' } });
    expectError(res, 409, 'INVALID_STATE');
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
    const stock = await http<{ data: Json[] }>(t.api.baseUrl, 'GET', `${INVENTORY}/stock?variantId=${red.id}`, { key: ws.secretKey });
    expect(stock.body.data).toEqual([expect.objectContaining({ warehouseId: warehouse.id, available: 2 })]);
  });
});

describe('product price and variants', () => {
  it('refuses a product price that would take a variant below 1 (400 on price, nothing written), and takes one that does not', async () => {
    const ws = await workspace();
    const product = await mug(ws.secretKey);
    await createVariant(t.api.baseUrl, ws.secretKey, product.id, { priceDelta: -100 });
    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    const res = await http(t.api.baseUrl, 'PATCH', `${PRODUCTS}/${product.id}`, { key: ws.secretKey, body: { price: 100 } });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect((res.body.error as { details: Array<{ field: string }> }).details[0]!.field).toBe('price');
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
    expect((await http(t.api.baseUrl, 'PATCH', `${PRODUCTS}/${product.id}`, { key: ws.secretKey, body: { price: 101 } })).status).toBe(200);
  });
});

describe('public product page', () => {
  it('shows active variants with resolved prices, default first, and stock only while the module is on', async () => {
    const ws = await workspace();
    const product = await mug(ws.secretKey, { slug: 'mug', published: true });
    const warehouse = await createWarehouse(t.api.baseUrl, ws.secretKey);
    const blue = await createVariant(t.api.baseUrl, ws.secretKey, product.id, { name: 'Blue', sku: 'B', costPrice: 40, lowStockThreshold: 1 });
    const red = await createVariant(t.api.baseUrl, ws.secretKey, product.id, { name: 'Red', priceDelta: 15 });
    const gone = await createVariant(t.api.baseUrl, ws.secretKey, product.id, { name: 'Gone' });
    await http(t.api.baseUrl, 'DELETE', `${VARIANTS}/${gone.id}`, { key: ws.secretKey });
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: red.id, warehouseId: warehouse.id, delta: 7 });
    const page = () => http<{ data: Json }>(t.api.baseUrl, 'GET', `/api/v1/storefront/public/${ws.slug}/mug`, { key: ws.publishableKey });

    const on = await page();
    expect(on.status).toBe(200);
    expect(on.body.data.variants).toEqual([
      { id: blue.id, productId: product.id, sku: 'B', name: 'Blue', priceDelta: 0, price: 120, isDefault: true, available: 0 },
      { id: red.id, productId: product.id, sku: null, name: 'Red', priceDelta: 15, price: 135, isDefault: false, available: 7 },
    ]);
    expect(on.body.data.inventory).toEqual({ available: 7, inStock: true });

    await switchFulfillment(t.api.baseUrl, ws.secretKey, false);
    const off = await page();
    expect((off.body.data.variants as Json[]).map((v) => [v.id, v.available])).toEqual([
      [blue.id, null],
      [red.id, null],
    ]);
    expect(off.body.data.inventory).toBeNull();
  });
});
