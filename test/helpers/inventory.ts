import { QueryTypes, type Sequelize } from 'sequelize';
import { http, type HttpResult } from './context';

export const INVENTORY = '/api/v1/inventory';

export type WarehouseDto = Record<string, unknown> & { id: string; isDefault: boolean; archived: boolean };
export type VariantDto = Record<string, unknown> & { id: string; productId: string; isDefault: boolean; price: number; priceCents: number };
export type MovementDto = Record<string, unknown> & { id: string; delta: number; balance: number; reservedBalance: number; incomingBalance: number };
export type StockRowDto = { warehouseId: string; warehouseName: string; variantId: string; available: number; reserved: number; incoming: number };

/** Switches the fulfillment module through the API (the serving process drops the workspace's cached flags at once). */
export async function switchFulfillment(baseUrl: string, key: string, enabled: boolean): Promise<void> {
  const res = await http(baseUrl, 'POST', '/api/v1/modules', { key, body: { module: 'fulfillment', enabled } });
  if (res.status !== 200) throw new Error(`module switch answered ${res.status}: ${res.text}`);
}

async function created<T>(res: Promise<HttpResult<{ data: T }>>, what: string): Promise<T> {
  const answer = await res;
  if (answer.status !== 201) throw new Error(`${what} answered ${answer.status}: ${answer.text}`);
  return answer.body.data;
}

export const createWarehouse = (baseUrl: string, key: string, body: Record<string, unknown> = {}) =>
  created<WarehouseDto>(http(baseUrl, 'POST', `${INVENTORY}/warehouses`, { key, body: { name: 'Main', ...body } }), 'warehouse create');

export const createVariant = (baseUrl: string, key: string, productId: string, body: Record<string, unknown> = {}) =>
  created<VariantDto>(http(baseUrl, 'POST', `${INVENTORY}/variants`, { key, body: { productId, name: 'Blue / M', ...body } }), 'variant create');

export const adjustStock = (baseUrl: string, key: string, body: Record<string, unknown>) =>
  created<MovementDto>(http(baseUrl, 'POST', `${INVENTORY}/adjust`, { key, body: { reason: 'manual_adjust', ...body } }), 'adjust');

export async function stockOf(baseUrl: string, key: string, variantId: string): Promise<StockRowDto[]> {
  const res = await http<{ data: StockRowDto[] }>(baseUrl, 'GET', `${INVENTORY}/stock?variantId=${variantId}`, { key });
  if (res.status !== 200) throw new Error(`stock answered ${res.status}: ${res.text}`);
  return res.body.data;
}

/** Every inventory row of a workspace, its products and its events, to prove a refusal wrote nothing. */
export async function inventorySnapshot(sequelize: Sequelize, accountId: string): Promise<Record<string, unknown[]>> {
  const read = (sql: string) => sequelize.query(sql, { type: QueryTypes.SELECT, replacements: { accountId } });
  return {
    warehouses: await read('SELECT * FROM warehouses WHERE account_id = :accountId ORDER BY id'),
    variants: await read('SELECT * FROM variants WHERE account_id = :accountId ORDER BY id'),
    stock: await read('SELECT * FROM stock_levels WHERE account_id = :accountId ORDER BY variant_id, warehouse_id'),
    movements: await read('SELECT * FROM stock_movements WHERE account_id = :accountId ORDER BY seq'),
    products: await read('SELECT * FROM products WHERE account_id = :accountId ORDER BY id'),
    events: await read('SELECT id, type FROM events WHERE account_id = :accountId ORDER BY id'),
  };
}

interface MovementLogRow {
  delta: string;
  balance: string;
  reserved_delta: string;
  reserved_balance: string;
  incoming_delta: string;
  incoming_balance: string;
}

/**
 * A stock row's movement log replayed from zero: every movement's balances are the previous ones plus its deltas,
 * never below zero, ending at the row (zeros when it was never moved). Answers the row's balances.
 */
export async function expectLogMatchesRow(sequelize: Sequelize, variantId: string, warehouseId: string): Promise<{ available: number; reserved: number; incoming: number }> {
  const movements = await sequelize.query<MovementLogRow>('SELECT * FROM stock_movements WHERE variant_id = :variantId AND warehouse_id = :warehouseId ORDER BY seq', {
    type: QueryTypes.SELECT,
    replacements: { variantId, warehouseId },
  });
  const sums = { available: 0, reserved: 0, incoming: 0 };
  for (const m of movements) {
    sums.available += Number(m.delta);
    sums.reserved += Number(m.reserved_delta);
    sums.incoming += Number(m.incoming_delta);
    expect([Number(m.balance), Number(m.reserved_balance), Number(m.incoming_balance)]).toEqual([sums.available, sums.reserved, sums.incoming]);
    expect(Math.min(sums.available, sums.reserved, sums.incoming)).toBeGreaterThanOrEqual(0);
  }
  const [row] = await sequelize.query<{ available: string; reserved: string; incoming: string }>(
    'SELECT available, reserved, incoming FROM stock_levels WHERE variant_id = :variantId AND warehouse_id = :warehouseId',
    { type: QueryTypes.SELECT, replacements: { variantId, warehouseId } },
  );
  expect({ available: Number(row?.available ?? 0), reserved: Number(row?.reserved ?? 0), incoming: Number(row?.incoming ?? 0) }).toEqual(sums);
  return sums;
}
