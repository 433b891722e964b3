import { QueryTypes } from 'sequelize';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { moveStock, type StockMove } from '../../domain/inventory/stock';
import { ApiKey, StockLevel } from '../../db/models';
import { hashKey } from '../../lib/api-key-secrets';
import { AppError } from '../../lib/errors';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';
import {
  adjustStock,
  createVariant,
  createWarehouse,
  INVENTORY,
  inventorySnapshot,
  stockOf,
  switchFulfillment,
  type MovementDto,
  type VariantDto,
  type WarehouseDto,
} from '../helpers/inventory';
import { createProduct } from '../helpers/storefront';

const t = useTestApi();
const ADJUST = `${INVENTORY}/adjust`;

interface Setup {
  ws: CreatedWorkspace;
  main: WarehouseDto;
  spare: WarehouseDto;
  variant: VariantDto;
  productId: string;
}

/** A workspace with the module on, two warehouses (main is the default) and a product with one variant. */
async function setup(): Promise<Setup> {
  const ws = await t.ctx.createWorkspace();
  await switchFulfillment(t.api.baseUrl, ws.secretKey, true);
  const main = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Main' });
  const spare = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Spare' });
  const product = await createProduct(t.api.baseUrl, ws.secretKey, { name: 'Mug', type: 'physical', weight: 300 });
  const variant = await createVariant(t.api.baseUrl, ws.secretKey, product.id);
  return { ws, main, spare, variant, productId: product.id };
}

const tenantOf = (ws: CreatedWorkspace) => ({ accountId: ws.accountId, environment: 'test' as const });

/** A stock change through the domain function, in its own transaction, as the checkout workflow will make one. */
const move = (ws: CreatedWorkspace, m: Omit<StockMove, 'actor'>) =>
  t.ctx.sequelize.transaction((tx) => moveStock(tx, tenantOf(ws), { ...m, actor: { type: 'workflow', id: 'checkout-session:cs_test' } }));

interface MovementRow {
  delta: string;
  balance: string;
  reserved_delta: string;
  reserved_balance: string;
  incoming_delta: string;
  incoming_balance: string;
}

/** A stock row's movements in the order they happened. */
const movementsOf = (variantId: string, warehouseId: string) =>
  t.ctx.sequelize.query<MovementRow>('SELECT * FROM stock_movements WHERE variant_id = :variantId AND warehouse_id = :warehouseId ORDER BY seq', {
    type: QueryTypes.SELECT,
    replacements: { variantId, warehouseId },
  });

/** The log replayed from zero: every movement's balances are the previous ones plus its deltas, never below zero, ending at the row. */
async function expectLogMatchesRow(variantId: string, warehouseId: string): Promise<void> {
  let available = 0;
  let reserved = 0;
  let incoming = 0;
  for (const m of await movementsOf(variantId, warehouseId)) {
    available += Number(m.delta);
    reserved += Number(m.reserved_delta);
    incoming += Number(m.incoming_delta);
    expect([Number(m.balance), Number(m.reserved_balance), Number(m.incoming_balance)]).toEqual([available, reserved, incoming]);
    expect(Math.min(available, reserved, incoming)).toBeGreaterThanOrEqual(0);
  }
  const row = await StockLevel.findOne({ where: { variantId, warehouseId } });
  expect({ available: row?.available ?? 0, reserved: row?.reserved ?? 0, incoming: row?.incoming ?? 0 }).toEqual({ available, reserved, incoming });
}

describe('GET /v1/inventory/stock', () => {
  it('answers one row per active warehouse, the default first, with zeros where the variant was never stocked', async () => {
    const { ws, main, spare, variant } = await setup();
    const moved = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'New default', isDefault: true });
    const closed = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Closed' });
    await http(t.api.baseUrl, 'DELETE', `${INVENTORY}/warehouses/${closed.id}`, { key: ws.secretKey });
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: spare.id, delta: 4 });
    expect(await stockOf(t.api.baseUrl, ws.secretKey, variant.id)).toEqual([
      { warehouseId: moved.id, warehouseName: 'New default', variantId: variant.id, available: 0, reserved: 0, incoming: 0 },
      { warehouseId: main.id, warehouseName: 'Main', variantId: variant.id, available: 0, reserved: 0, incoming: 0 },
      { warehouseId: spare.id, warehouseName: 'Spare', variantId: variant.id, available: 4, reserved: 0, incoming: 0 },
    ]);
  });

  it('answers 400 without variantId and 404 RESOURCE_NOT_FOUND for a variant that is not the workspace’s', async () => {
    const { ws } = await setup();
    const other = await setup();
    expectError(await http(t.api.baseUrl, 'GET', `${INVENTORY}/stock`, { key: ws.secretKey }), 400, 'VALIDATION_ERROR');
    expectError(await http(t.api.baseUrl, 'GET', `${INVENTORY}/stock?variantId=${other.variant.id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'GET', `${INVENTORY}/stock?variantId=${other.variant.id}`, { key: other.ws.liveSecretKey }), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('POST /v1/inventory/adjust', () => {
  it('moves available and answers the movement: delta, resulting balances, the API key as actor, reference and note', async () => {
    const { ws, main, variant } = await setup();
    const key = await ApiKey.findOne({ where: { keyHash: hashKey(ws.secretKey) } });
    const res = await http<{ data: MovementDto }>(t.api.baseUrl, 'POST', ADJUST, {
      key: ws.secretKey,
      body: { variantId: variant.id, warehouseId: main.id, delta: 10, reason: 'initial_stock', note: 'Opening count\nshelf 3', reference: 'PO-2031' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^mvt_[0-9A-Z]{26}$/),
      accountId: ws.accountId,
      variantId: variant.id,
      warehouseId: main.id,
      kind: 'adjust',
      reason: 'initial_stock',
      delta: 10,
      balance: 10,
      reservedDelta: 0,
      reservedBalance: 0,
      incomingDelta: 0,
      incomingBalance: 0,
      actorType: 'api_key',
      actorId: key!.id,
      reference: 'PO-2031',
      note: 'Opening count\nshelf 3',
      createdAt: expect.any(String),
    });
    const taken = await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: -4, reason: 'damaged' });
    expect([taken.delta, taken.balance, taken.reference, taken.note]).toEqual([-4, 6, null, null]);
    expect((await stockOf(t.api.baseUrl, ws.secretKey, variant.id))[0]).toMatchObject({ available: 6 });
    await expectLogMatchesRow(variant.id, main.id);
  });

  it.each(['manual_adjust', 'refund_restock', 'transfer_in', 'transfer_out', 'damaged', 'returned_to_supplier', 'initial_stock', 'import'])(
    'takes the documented reason %s, moving available',
    async (reason) => {
      const { ws, main, variant } = await setup();
      await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: 5, reason: 'initial_stock' });
      const m = await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: -2, reason });
      expect([m.reason, m.delta, m.balance, m.incomingBalance]).toEqual([reason, -2, 3, 0]);
    },
  );

  it('moves incoming with supplier_ordered, and from incoming to available with supplier_received', async () => {
    const { ws, main, variant } = await setup();
    const ordered = await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: 12, reason: 'supplier_ordered' });
    expect([ordered.delta, ordered.balance, ordered.incomingDelta, ordered.incomingBalance]).toEqual([0, 0, 12, 12]);
    const canceled = await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: -2, reason: 'supplier_ordered' });
    expect(canceled.incomingBalance).toBe(10);
    const received = await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: 7, reason: 'supplier_received' });
    expect([received.delta, received.balance, received.incomingDelta, received.incomingBalance]).toEqual([7, 7, -7, 3]);
    expect((await stockOf(t.api.baseUrl, ws.secretKey, variant.id))[0]).toMatchObject({ available: 7, incoming: 3 });

    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    for (const body of [
      { delta: 4, reason: 'supplier_received' },
      { delta: -4, reason: 'supplier_ordered' },
    ]) {
      expectError(await http(t.api.baseUrl, 'POST', ADJUST, { key: ws.secretKey, body: { variantId: variant.id, warehouseId: main.id, ...body } }), 409, 'INSUFFICIENT_STOCK');
    }
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
    await expectLogMatchesRow(variant.id, main.id);
  });

  it('refuses a delta that would take available below zero: 409 INSUFFICIENT_STOCK with the balances, nothing written', async () => {
    const { ws, main, spare, variant } = await setup();
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: 3 });
    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    const res = await http(t.api.baseUrl, 'POST', ADJUST, { key: ws.secretKey, body: { variantId: variant.id, warehouseId: main.id, delta: -4, reason: 'damaged' } });
    expectError(res, 409, 'INSUFFICIENT_STOCK');
    expect((res.body.error as { details: unknown }).details).toEqual({ available: 3, reserved: 0, incoming: 0 });
    // A warehouse never stocked is empty: refused without creating its stock row.
    expectError(
      await http(t.api.baseUrl, 'POST', ADJUST, { key: ws.secretKey, body: { variantId: variant.id, warehouseId: spare.id, delta: -1, reason: 'transfer_out' } }),
      409,
      'INSUFFICIENT_STOCK',
    );
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  const refusals: Array<[string, Record<string, unknown>]> = [
    ['no variantId', { variantId: undefined }],
    ['no warehouseId', { warehouseId: undefined }],
    ['no delta', { delta: undefined }],
    ['delta 0', { delta: 0 }],
    ['a fractional delta', { delta: 1.5 }],
    ['a delta as a string', { delta: '5' }],
    ['a delta over 1,000,000,000', { delta: 1_000_000_001 }],
    ['no reason', { reason: undefined }],
    ['an unknown reason', { reason: 'stolen' }],
    ['a negative supplier_received', { delta: -1, reason: 'supplier_received' }],
    ['a note over 500', { note: 'x'.repeat(501) }],
    ['a reference over 200', { reference: 'x'.repeat(201) }],
    ['an unknown field', { productId: 'prod_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }],
  ];

  it.each(refusals)('refuses %s with 400 VALIDATION_ERROR, writing nothing', async (_name, change) => {
    const { ws, main, variant } = await setup();
    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    const res = await http(t.api.baseUrl, 'POST', ADJUST, {
      key: ws.secretKey,
      body: { variantId: variant.id, warehouseId: main.id, delta: 5, reason: 'manual_adjust', ...change },
    });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('answers 404 NOT_FOUND for a warehouse and 404 RESOURCE_NOT_FOUND for a variant that is not the workspace’s, writing nothing', async () => {
    const { ws, main, variant } = await setup();
    const other = await setup();
    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    const otherBefore = await inventorySnapshot(t.ctx.sequelize, other.ws.accountId);
    const adjust = (key: string, variantId: string, warehouseId: string) =>
      http(t.api.baseUrl, 'POST', ADJUST, { key, body: { variantId, warehouseId, delta: 5, reason: 'manual_adjust' } });
    expectError(await adjust(ws.secretKey, variant.id, other.main.id), 404, 'NOT_FOUND');
    expectError(await adjust(ws.secretKey, variant.id, 'wh_01JD4X7V1QZ8N6Y3K2M5P9R0TS'), 404, 'NOT_FOUND');
    expectError(await adjust(ws.secretKey, other.variant.id, main.id), 404, 'RESOURCE_NOT_FOUND');
    expectError(await adjust(other.ws.secretKey, variant.id, main.id), 404, 'RESOURCE_NOT_FOUND');
    expectError(await adjust(ws.liveSecretKey, variant.id, main.id), 404, 'RESOURCE_NOT_FOUND');
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
    expect(await inventorySnapshot(t.ctx.sequelize, other.ws.accountId)).toEqual(otherBefore);
  });

  it('applies an adjustment once when retried with the same Idempotency-Key', async () => {
    const { ws, main, variant } = await setup();
    const send = () =>
      http<{ data: MovementDto }>(t.api.baseUrl, 'POST', ADJUST, {
        key: ws.secretKey,
        headers: { 'idempotency-key': 'count-1' },
        body: { variantId: variant.id, warehouseId: main.id, delta: 5, reason: 'import' },
      });
    const first = await send();
    const replay = await send();
    expect([first.status, replay.status]).toEqual([201, 201]);
    expect(replay.body.data).toEqual(first.body.data);
    expect(await movementsOf(variant.id, main.id)).toHaveLength(1);
  });

  it('lets exactly as many concurrent removals through as there is stock, never below zero', async () => {
    const { ws, main, variant } = await setup();
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: 10, reason: 'initial_stock' });
    const answers = await Promise.all(
      Array.from({ length: 25 }, () => http(t.api.baseUrl, 'POST', ADJUST, { key: ws.secretKey, body: { variantId: variant.id, warehouseId: main.id, delta: -1, reason: 'transfer_out' } })),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(answers.filter((r) => r.status !== 201).map((r) => [r.status, (r.body.error as { code: string }).code])).toEqual(Array(15).fill([409, 'INSUFFICIENT_STOCK']));
    expect((await stockOf(t.api.baseUrl, ws.secretKey, variant.id))[0]).toMatchObject({ available: 0 });
    await expectLogMatchesRow(variant.id, main.id);
  });

  it('keeps the movement log summing to the balances under a random concurrent mix of adjustments, reservations, releases and commits', async () => {
    const { ws, main, variant } = await setup();
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: 6, reason: 'initial_stock' });
    // A fixed-seed generator, so a failure replays.
    let seed = 20261123;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const key = { variantId: variant.id, warehouseId: main.id };
    const ops = Array.from({ length: 60 }, () => {
      const quantity = 1 + random(3);
      switch (random(5)) {
        case 0:
          return http(t.api.baseUrl, 'POST', ADJUST, { key: ws.secretKey, body: { ...key, delta: quantity, reason: 'manual_adjust' } }).then((r) => r.status);
        case 1:
          return http(t.api.baseUrl, 'POST', ADJUST, { key: ws.secretKey, body: { ...key, delta: -quantity, reason: 'damaged' } }).then((r) => r.status);
        default: {
          const kind = (['reserve', 'release', 'commit'] as const)[random(3)]!;
          return move(ws, { ...key, kind, quantity }).then(
            () => 201,
            (err: unknown) => (err instanceof AppError && err.code === 'INSUFFICIENT_STOCK' ? 409 : Promise.reject(err)),
          );
        }
      }
    });
    const statuses = await Promise.all(ops);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThan(10);
    expect(await movementsOf(variant.id, main.id)).toHaveLength(1 + statuses.filter((s) => s === 201).length);
    await expectLogMatchesRow(variant.id, main.id);
  });
});

describe('moveStock (the checkout reservation’s entry point)', () => {
  it('reserves, releases, commits and restocks, one movement each, with the workflow as actor and the session as reference', async () => {
    const { ws, main, variant } = await setup();
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: 10, reason: 'initial_stock' });
    const key = { variantId: variant.id, warehouseId: main.id, reference: 'cs_01JD4X7V1QZ8N6Y3K2M5P9R0TS' };
    const reserved = await move(ws, { ...key, kind: 'reserve', quantity: 3 });
    expect(reserved).toMatchObject({ kind: 'reserve', reason: 'reserve', delta: -3, balance: 7, reservedDelta: 3, reservedBalance: 3 });
    expect(reserved).toMatchObject({ actorType: 'workflow', actorId: 'checkout-session:cs_test', reference: key.reference });
    expect(await move(ws, { ...key, kind: 'release', quantity: 1 })).toMatchObject({ delta: 1, balance: 8, reservedDelta: -1, reservedBalance: 2 });
    expect(await move(ws, { ...key, kind: 'commit', quantity: 2 })).toMatchObject({ delta: 0, balance: 8, reservedDelta: -2, reservedBalance: 0 });
    expect(await move(ws, { ...key, kind: 'restock', quantity: 1, reason: 'refund_restock' })).toMatchObject({ reason: 'refund_restock', delta: 1, balance: 9 });
    expect((await stockOf(t.api.baseUrl, ws.secretKey, variant.id))[0]).toMatchObject({ available: 9, reserved: 0 });

    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    await expect(move(ws, { ...key, kind: 'commit', quantity: 1 })).rejects.toMatchObject({ code: 'INSUFFICIENT_STOCK' });
    await expect(move(ws, { ...key, kind: 'release', quantity: 1 })).rejects.toMatchObject({ code: 'INSUFFICIENT_STOCK' });
    await expect(move(ws, { ...key, kind: 'reserve', quantity: 10 })).rejects.toMatchObject({ code: 'INSUFFICIENT_STOCK' });
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
    await expectLogMatchesRow(variant.id, main.id);
  });

  it('leaves the transaction usable after a refusal, so a reservation can try the next warehouse', async () => {
    const { ws, main, spare, variant } = await setup();
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: 1 });
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: spare.id, delta: 5 });
    const taken = await t.ctx.sequelize.transaction(async (tx) => {
      for (const warehouseId of [main.id, spare.id]) {
        try {
          return await moveStock(tx, tenantOf(ws), { variantId: variant.id, warehouseId, kind: 'reserve', quantity: 2, actor: { type: 'workflow', id: 'w' } });
        } catch (err) {
          if (!(err instanceof AppError && err.code === 'INSUFFICIENT_STOCK')) throw err;
        }
      }
      throw new Error('no warehouse had enough');
    });
    expect(taken.warehouseId).toBe(spare.id);
    expect((await stockOf(t.api.baseUrl, ws.secretKey, variant.id)).map((r) => [r.available, r.reserved])).toEqual([
      [1, 0],
      [3, 2],
    ]);
  });

  it('refuses reservations of an archived variant or warehouse, but settles holds made before the archive', async () => {
    const { ws, main, spare, variant, productId } = await setup();
    const red = await createVariant(t.api.baseUrl, ws.secretKey, productId, { name: 'Red' });
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: red.id, warehouseId: spare.id, delta: 5 });
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: 5 });
    await move(ws, { variantId: red.id, warehouseId: spare.id, kind: 'reserve', quantity: 2 });
    await http(t.api.baseUrl, 'DELETE', `${INVENTORY}/variants/${red.id}`, { key: ws.secretKey });
    await http(t.api.baseUrl, 'DELETE', `${INVENTORY}/warehouses/${spare.id}`, { key: ws.secretKey });
    await expect(move(ws, { variantId: red.id, warehouseId: main.id, kind: 'reserve', quantity: 1 })).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await expect(move(ws, { variantId: variant.id, warehouseId: spare.id, kind: 'reserve', quantity: 1 })).rejects.toMatchObject({ code: 'INVALID_STATE' });
    expect(await move(ws, { variantId: red.id, warehouseId: spare.id, kind: 'release', quantity: 2 })).toMatchObject({ balance: 5, reservedBalance: 0 });
    await expectLogMatchesRow(red.id, spare.id);
  });
});

describe('GET /v1/inventory/movements', () => {
  it('lists movements oldest first, filtered by variant and warehouse, paged with a cursor', async () => {
    const { ws, main, spare, variant, productId } = await setup();
    const red = await createVariant(t.api.baseUrl, ws.secretKey, productId, { name: 'Red' });
    const m1 = await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: 5 });
    const m2 = await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: spare.id, delta: 3 });
    const m3 = await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: red.id, warehouseId: main.id, delta: 1 });
    const m4 = await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: -2 });
    type Page = { data: MovementDto[]; meta: { page: { nextCursor: string | null } } };
    const list = async (query: string) => (await http<Page>(t.api.baseUrl, 'GET', `${INVENTORY}/movements${query}`, { key: ws.secretKey })).body;

    expect((await list(`?variantId=${variant.id}`)).data).toEqual([m1, m2, m4]);
    expect((await list(`?variantId=${variant.id}&warehouseId=${main.id}`)).data.map((m) => [m.delta, m.balance])).toEqual([
      [5, 5],
      [-2, 3],
    ]);
    expect((await list('')).data.map((m) => m.id)).toEqual([m1.id, m2.id, m3.id, m4.id]);
    const first = await list(`?variantId=${variant.id}&limit=2`);
    expect(first.data.map((m) => m.id)).toEqual([m1.id, m2.id]);
    const next = await list(`?variantId=${variant.id}&limit=2&cursor=${first.meta.page.nextCursor}`);
    expect(next.data.map((m) => m.id)).toEqual([m4.id]);
    expect(next.meta.page.nextCursor).toBeNull();

    expectError(await http(t.api.baseUrl, 'GET', `${INVENTORY}/movements?variantId=var_01JD4X7V1QZ8N6Y3K2M5P9R0TS`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'GET', `${INVENTORY}/movements?warehouseId=wh_01JD4X7V1QZ8N6Y3K2M5P9R0TS`, { key: ws.secretKey }), 404, 'NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'GET', `${INVENTORY}/movements?cursor=bogus`, { key: ws.secretKey }), 400, 'VALIDATION_ERROR');
    // Another workspace sees none of them.
    const other = await setup();
    expect((await http<Page>(t.api.baseUrl, 'GET', `${INVENTORY}/movements`, { key: other.ws.secretKey })).body.data).toEqual([]);
  });
});

describe('GET /v1/inventory/low-stock', () => {
  it('lists active variants with a threshold whose available stock, summed over active warehouses, is at or below it', async () => {
    const { ws, main, spare, variant, productId } = await setup();
    type Row = { variantId: string; available: number };
    const lowStock = async () => (await http<{ data: Row[] }>(t.api.baseUrl, 'GET', `${INVENTORY}/low-stock`, { key: ws.secretKey })).body.data;
    expect(await lowStock()).toEqual([]);

    const closing = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Closing' });
    // At the threshold, over two warehouses.
    const summed = variant;
    await http(t.api.baseUrl, 'PATCH', `${INVENTORY}/variants/${summed.id}`, { key: ws.secretKey, body: { lowStockThreshold: 3 } });
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: summed.id, warehouseId: main.id, delta: 2 });
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: summed.id, warehouseId: spare.id, delta: 1 });
    // Above it until its stock in an archived warehouse stops counting.
    const archivedStock = await createVariant(t.api.baseUrl, ws.secretKey, productId, { name: 'Closing', lowStockThreshold: 3 });
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: archivedStock.id, warehouseId: main.id, delta: 2 });
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: archivedStock.id, warehouseId: closing.id, delta: 5 });
    // Above it.
    const plenty = await createVariant(t.api.baseUrl, ws.secretKey, productId, { name: 'Plenty', lowStockThreshold: 3 });
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: plenty.id, warehouseId: main.id, delta: 4 });
    // No threshold; a threshold of 0 and never stocked; archived.
    await createVariant(t.api.baseUrl, ws.secretKey, productId, { name: 'Untracked' });
    const never = await createVariant(t.api.baseUrl, ws.secretKey, productId, { name: 'Never', lowStockThreshold: 0 });
    const gone = await createVariant(t.api.baseUrl, ws.secretKey, productId, { name: 'Gone', lowStockThreshold: 5 });
    await http(t.api.baseUrl, 'DELETE', `${INVENTORY}/variants/${gone.id}`, { key: ws.secretKey });
    // A variant of an archived product.
    const old = await createProduct(t.api.baseUrl, ws.secretKey, { name: 'Old', type: 'physical', weight: 1 });
    await createVariant(t.api.baseUrl, ws.secretKey, old.id, { lowStockThreshold: 5 });
    await http(t.api.baseUrl, 'DELETE', `/api/v1/storefront/products/${old.id}`, { key: ws.secretKey });

    expect((await lowStock()).map((r) => [r.variantId, r.available])).toEqual([
      [never.id, 0],
      [summed.id, 3],
    ]);
    await http(t.api.baseUrl, 'DELETE', `${INVENTORY}/warehouses/${closing.id}`, { key: ws.secretKey });
    const rows = await lowStock();
    expect(rows.map((r) => [r.variantId, r.available])).toEqual([
      [never.id, 0],
      [archivedStock.id, 2],
      [summed.id, 3],
    ]);
    expect(rows[2]).toEqual({ variantId: summed.id, variantName: 'Blue / M', productId, sku: null, lowStockThreshold: 3, available: 3, reserved: 0, incoming: 0 });

    const page = await http<{ data: Row[]; meta: { page: { nextCursor: string } } }>(t.api.baseUrl, 'GET', `${INVENTORY}/low-stock?limit=2`, { key: ws.secretKey });
    expect(page.body.data).toHaveLength(2);
    const rest = await http<{ data: Row[] }>(t.api.baseUrl, 'GET', `${INVENTORY}/low-stock?limit=2&cursor=${page.body.meta.page.nextCursor}`, { key: ws.secretKey });
    expect(rest.body.data.map((r) => r.variantId)).toEqual([summed.id]);
  });
});
