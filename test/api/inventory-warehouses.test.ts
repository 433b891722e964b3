import { Warehouse } from '../../db/models';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { adjustStock, createVariant, createWarehouse, INVENTORY, inventorySnapshot, switchFulfillment, type WarehouseDto } from '../helpers/inventory';
import { createProduct } from '../helpers/storefront';

const t = useTestApi();
const WAREHOUSES = `${INVENTORY}/warehouses`;

/** A workspace with the fulfillment module on. */
async function workspace() {
  const ws = await t.ctx.createWorkspace();
  await switchFulfillment(t.api.baseUrl, ws.secretKey, true);
  return ws;
}

async function defaults(accountId: string): Promise<string[]> {
  const rows = await Warehouse.findAll({ where: { accountId, isDefault: true }, attributes: ['id'] });
  return rows.map((r) => r.id);
}

describe('POST /v1/inventory/warehouses', () => {
  it('creates the first warehouse as the default whatever isDefault says, with every field', async () => {
    const ws = await workspace();
    const res = await http<{ data: WarehouseDto }>(t.api.baseUrl, 'POST', WAREHOUSES, {
      key: ws.secretKey,
      body: { name: '  Main  ', address: 'Jl. Sudirman 1\nLantai 2', city: 'Jakarta', postal: '10220', phone: '+62 21 555 0100', isDefault: false },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^wh_[0-9A-Z]{26}$/),
      accountId: ws.accountId,
      name: 'Main',
      address: 'Jl. Sudirman 1\nLantai 2',
      city: 'Jakarta',
      postal: '10220',
      phone: '+62 21 555 0100',
      isDefault: true,
      archived: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const minimal = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Overflow' });
    expect(minimal).toMatchObject({ address: null, city: null, postal: null, phone: null, isDefault: false });
  });

  it('a later warehouse with isDefault: true takes the default over; the previous one is demoted', async () => {
    const ws = await workspace();
    const first = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'First' });
    const second = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Second', isDefault: false });
    const third = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Third', isDefault: true });
    expect([first.isDefault, second.isDefault, third.isDefault]).toEqual([true, false, true]);
    expect(await defaults(ws.accountId)).toEqual([third.id]);
  });

  it('makes exactly one default out of concurrent creates, first ones and isDefault ones alike', async () => {
    const ws = await workspace();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => createWarehouse(t.api.baseUrl, ws.secretKey, { name: `W${i}`, ...(i % 2 ? { isDefault: true } : {}) })));
    expect(answers).toHaveLength(8);
    expect(await defaults(ws.accountId)).toHaveLength(1);
  });

  const refusals: Array<[string, Record<string, unknown>]> = [
    ['no name', { name: undefined }],
    ['an empty name', { name: '   ' }],
    ['a name over 100', { name: 'x'.repeat(101) }],
    ['an address over 500', { address: 'x'.repeat(501) }],
    ['a city over 100', { city: 'x'.repeat(101) }],
    ['a postal code over 20', { postal: '1'.repeat(21) }],
    ['a phone over 30', { phone: '1'.repeat(31) }],
    ['a name with a line break', { name: 'Main\nOther' }],
    ['isDefault as a string', { isDefault: 'yes' }],
    ['archived (not settable)', { archived: true }],
    ['an id', { id: 'wh_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }],
    ['an unknown field', { capacity: 100 }],
  ];

  it.each(refusals)('refuses %s with 400 VALIDATION_ERROR, writing nothing', async (_name, change) => {
    const ws = await workspace();
    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    const res = await http(t.api.baseUrl, 'POST', WAREHOUSES, { key: ws.secretKey, body: { name: 'Main', ...change } });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('refuses a publishable key with 403, writing nothing', async () => {
    const ws = await workspace();
    expectError(await http(t.api.baseUrl, 'POST', WAREHOUSES, { key: ws.publishableKey, body: { name: 'Main' } }), 403, 'FORBIDDEN');
    expect(await Warehouse.count({ where: { accountId: ws.accountId } })).toBe(0);
  });
});

describe('GET /v1/inventory/warehouses and /:id', () => {
  it('lists active warehouses newest first, pages them, and hides archived ones from the list and retrieve', async () => {
    const ws = await workspace();
    const a = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'A' });
    const b = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'B' });
    const c = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'C' });
    expect((await http(t.api.baseUrl, 'DELETE', `${WAREHOUSES}/${b.id}`, { key: ws.secretKey })).status).toBe(200);

    const first = await http<{ data: WarehouseDto[]; meta: { page: { nextCursor: string | null } } }>(t.api.baseUrl, 'GET', `${WAREHOUSES}?limit=1`, { key: ws.secretKey });
    expect(first.body.data.map((w) => w.id)).toEqual([c.id]);
    const rest = await http<{ data: WarehouseDto[]; meta: { page: { nextCursor: string | null } } }>(
      t.api.baseUrl,
      'GET',
      `${WAREHOUSES}?limit=5&cursor=${first.body.meta.page.nextCursor}`,
      { key: ws.secretKey },
    );
    expect(rest.body.data.map((w) => w.id)).toEqual([a.id]);
    expect(rest.body.meta.page.nextCursor).toBeNull();

    const retrieved = await http<{ data: WarehouseDto }>(t.api.baseUrl, 'GET', `${WAREHOUSES}/${a.id}`, { key: ws.secretKey });
    expect(retrieved.body.data).toEqual(a);
    expectError(await http(t.api.baseUrl, 'GET', `${WAREHOUSES}/${b.id}`, { key: ws.secretKey }), 404, 'NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'GET', `${WAREHOUSES}/wh_01JD4X7V1QZ8N6Y3K2M5P9R0TS`, { key: ws.secretKey }), 404, 'NOT_FOUND');
  });
});

describe('PATCH /v1/inventory/warehouses/:id', () => {
  it('updates fields, clears nullable ones with null, and moves the default with isDefault: true', async () => {
    const ws = await workspace();
    const a = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'A', city: 'Bandung' });
    const b = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'B' });
    const res = await http<{ data: WarehouseDto }>(t.api.baseUrl, 'PATCH', `${WAREHOUSES}/${a.id}`, {
      key: ws.secretKey,
      body: { name: 'Alpha', city: null, phone: '0812' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: a.id, name: 'Alpha', city: null, phone: '0812', isDefault: true });

    const moved = await http<{ data: WarehouseDto }>(t.api.baseUrl, 'PATCH', `${WAREHOUSES}/${b.id}`, { key: ws.secretKey, body: { isDefault: true } });
    expect(moved.body.data.isDefault).toBe(true);
    expect(await defaults(ws.accountId)).toEqual([b.id]);
  });

  it('keeps exactly one default under concurrent isDefault PATCHes of different warehouses', async () => {
    const ws = await workspace();
    const all: WarehouseDto[] = [];
    for (let i = 0; i < 6; i += 1) all.push(await createWarehouse(t.api.baseUrl, ws.secretKey, { name: `W${i}` }));
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.all(all.map((w) => http(t.api.baseUrl, 'PATCH', `${WAREHOUSES}/${w.id}`, { key: ws.secretKey, body: { isDefault: true } })));
      expect(answers.map((r) => r.status)).toEqual(all.map(() => 200));
      expect(await defaults(ws.accountId)).toHaveLength(1);
    }
  });

  it.each([
    ['an empty body', {}, 400, 'VALIDATION_ERROR'],
    ['an empty name', { name: '' }, 400, 'VALIDATION_ERROR'],
    ['an unknown field', { archived: false }, 400, 'VALIDATION_ERROR'],
    ['isDefault: false on the default (there must be one)', { isDefault: false }, 409, 'INVALID_STATE'],
  ])('refuses %s, writing nothing', async (_name, body, status, code) => {
    const ws = await workspace();
    const a = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'A' });
    await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'B' });
    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    expectError(await http(t.api.baseUrl, 'PATCH', `${WAREHOUSES}/${a.id}`, { key: ws.secretKey, body }), status, code);
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('answers 404 NOT_FOUND for a missing or archived warehouse', async () => {
    const ws = await workspace();
    await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'A' });
    const b = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'B' });
    await http(t.api.baseUrl, 'DELETE', `${WAREHOUSES}/${b.id}`, { key: ws.secretKey });
    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    expectError(await http(t.api.baseUrl, 'PATCH', `${WAREHOUSES}/${b.id}`, { key: ws.secretKey, body: { name: 'Back' } }), 404, 'NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'PATCH', `${WAREHOUSES}/wh_01JD4X7V1QZ8N6Y3K2M5P9R0TS`, { key: ws.secretKey, body: { name: 'X' } }), 404, 'NOT_FOUND');
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });
});

describe('DELETE /v1/inventory/warehouses/:id', () => {
  it('archives: answered with the archived warehouse, hidden, stock kept, and no new adjustments (409 INVALID_STATE)', async () => {
    const ws = await workspace();
    const main = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Main' });
    const spare = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Spare' });
    const product = await createProduct(t.api.baseUrl, ws.secretKey, { name: 'Mug', type: 'physical', weight: 300 });
    const variant = await createVariant(t.api.baseUrl, ws.secretKey, product.id);
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: spare.id, delta: 4, reason: 'initial_stock' });

    const res = await http<{ data: WarehouseDto }>(t.api.baseUrl, 'DELETE', `${WAREHOUSES}/${spare.id}`, { key: ws.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: spare.id, archived: true, isDefault: false });
    const listed = await http<{ data: WarehouseDto[] }>(t.api.baseUrl, 'GET', WAREHOUSES, { key: ws.secretKey });
    expect(listed.body.data.map((w) => w.id)).toEqual([main.id]);

    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    expect(before.stock).toEqual([expect.objectContaining({ warehouse_id: spare.id, available: '4' })]);
    const adjust = await http(t.api.baseUrl, 'POST', `${INVENTORY}/adjust`, {
      key: ws.secretKey,
      body: { variantId: variant.id, warehouseId: spare.id, delta: 1, reason: 'manual_adjust' },
    });
    expectError(adjust, 409, 'INVALID_STATE');
    expect((adjust.body.error as { message: string }).message).toMatch(/warehouse is archived/);
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
    expectError(await http(t.api.baseUrl, 'DELETE', `${WAREHOUSES}/${spare.id}`, { key: ws.secretKey }), 404, 'NOT_FOUND');
  });

  it('refuses to archive the default while another warehouse is active (409 INVALID_STATE), writing nothing', async () => {
    const ws = await workspace();
    const main = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Main' });
    await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Spare' });
    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    expectError(await http(t.api.baseUrl, 'DELETE', `${WAREHOUSES}/${main.id}`, { key: ws.secretKey }), 409, 'INVALID_STATE');
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('archives the last active warehouse, default or not; the next one created is the default', async () => {
    const ws = await workspace();
    const only = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Only' });
    const res = await http<{ data: WarehouseDto }>(t.api.baseUrl, 'DELETE', `${WAREHOUSES}/${only.id}`, { key: ws.secretKey });
    expect(res.body.data).toMatchObject({ archived: true, isDefault: false });
    const next = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Next' });
    expect(next.isDefault).toBe(true);
  });
});
