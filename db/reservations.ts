import { QueryTypes, type Transaction } from 'sequelize';
import { connectionOf } from './outbox';
import type { Tenant } from './tenancy';

/**
 * The statements of stock reservations (`stock_reservations`), in plain SQL; the rules (what is reserved, from
 * where, when it is settled) live in domain/inventory/reservations.ts.
 */

export interface ReservationRow {
  variantId: string;
  warehouseId: string;
  quantity: number;
}

export type SettledStatus = 'released' | 'committed';

/** The statements of a reservation, in the order it sends them; exported so the bench's ceiling sends the very same ones. */
export const FULFILLMENT_ENABLED_SQL = `SELECT fulfillment_enabled AS enabled FROM accounts WHERE id = $1`;
export const TRACKED_VARIANTS_SQL = `SELECT DISTINCT variant_id AS "variantId" FROM stock_levels WHERE variant_id = ANY($1) AND account_id = $2 AND environment = $3 ORDER BY variant_id`;
export const SHARE_LOCK_PRODUCTS_SQL = `SELECT p.id FROM products p
      WHERE p.id IN (SELECT v.product_id FROM variants v WHERE v.id = ANY($1) AND v.account_id = $2 AND v.environment = $3)
      ORDER BY p.id
        FOR SHARE OF p`;
export const WAREHOUSES_WITH_ENOUGH_SQL = `SELECT w.id FROM warehouses w JOIN stock_levels s ON s.warehouse_id = w.id AND s.variant_id = $1
      WHERE w.account_id = $2 AND w.environment = $3 AND NOT w.archived AND s.available >= $4
      ORDER BY w.is_default DESC, w.id`;
export const INSERT_RESERVATIONS_SQL = `INSERT INTO stock_reservations (reference, variant_id, warehouse_id, account_id, environment, quantity)
     SELECT $1, r.variant_id, r.warehouse_id, $2, $3, r.quantity
       FROM unnest($4::text[], $5::text[], $6::bigint[]) AS r(variant_id, warehouse_id, quantity)`;

/** Whether the workspace has the fulfillment module on, as committed now (not as a request's cached key saw it). */
export async function fulfillmentEnabled(tx: Transaction, accountId: string): Promise<boolean> {
  const [row] = await connectionOf(tx).query<{ enabled: boolean }>(FULFILLMENT_ENABLED_SQL, {
    bind: [accountId],
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return row?.enabled ?? false;
}

/** Those of `variantIds` whose stock is tracked (any stock row, in any warehouse), in id order. */
export async function trackedVariantIds(tx: Transaction, tenant: Tenant, variantIds: string[]): Promise<string[]> {
  const rows = await connectionOf(tx).query<{ variantId: string }>(
    TRACKED_VARIANTS_SQL,
    { bind: [variantIds, tenant.accountId, tenant.environment], type: QueryTypes.SELECT, transaction: tx },
  );
  return rows.map((row) => row.variantId);
}

/**
 * Share-locks the products of `variantIds`, in product id order. Every variant write locks its product first, so
 * a reservation holding these can never wait on a variant write that waits on the reservation's variant locks.
 */
export async function shareLockProductsOf(tx: Transaction, tenant: Tenant, variantIds: string[]): Promise<void> {
  await connectionOf(tx).query(
    SHARE_LOCK_PRODUCTS_SQL,
    { bind: [variantIds, tenant.accountId, tenant.environment], type: QueryTypes.SELECT, transaction: tx },
  );
}

/**
 * The active warehouses whose `available` of the variant was at least `quantity` when read (no lock: the move
 * re-checks under the row lock), the default first, then in creation order.
 */
export async function warehousesWithEnough(tx: Transaction, tenant: Tenant, variantId: string, quantity: number): Promise<string[]> {
  const rows = await connectionOf(tx).query<{ id: string }>(
    WAREHOUSES_WITH_ENOUGH_SQL,
    { bind: [variantId, tenant.accountId, tenant.environment, quantity], type: QueryTypes.SELECT, transaction: tx },
  );
  return rows.map((row) => row.id);
}

/** The most of the variant one active warehouse has available (0 when none has any). */
export async function mostAvailableInOneWarehouse(tx: Transaction, tenant: Tenant, variantId: string): Promise<number> {
  const [row] = await connectionOf(tx).query<{ most: string | null }>(
    `SELECT max(s.available) AS most FROM stock_levels s JOIN warehouses w ON w.id = s.warehouse_id AND NOT w.archived
      WHERE s.variant_id = $1 AND s.account_id = $2 AND s.environment = $3`,
    { bind: [variantId, tenant.accountId, tenant.environment], type: QueryTypes.SELECT, transaction: tx },
  );
  return Number(row?.most ?? 0);
}

export async function insertReservations(tx: Transaction, tenant: Tenant, reference: string, rows: ReservationRow[]): Promise<void> {
  if (rows.length === 0) return;
  await connectionOf(tx).query(
    INSERT_RESERVATIONS_SQL,
    {
      bind: [reference, tenant.accountId, tenant.environment, rows.map((r) => r.variantId), rows.map((r) => r.warehouseId), rows.map((r) => r.quantity)],
      type: QueryTypes.INSERT,
      transaction: tx,
    },
  );
}

/**
 * Marks the reservations of `reference` still held as settled and answers them in the order their stock rows are
 * to be moved (variant id, then warehouse id). The UPDATE locks them; a concurrent settle of the same reference
 * waits, then re-checks `held` on the committed rows and finds none: each hold is settled once.
 */
export async function settleHeldReservations(tx: Transaction, tenant: Tenant, reference: string, status: SettledStatus): Promise<ReservationRow[]> {
  const rows = await connectionOf(tx).query<{ variantId: string; warehouseId: string; quantity: string }>(
    `UPDATE stock_reservations SET status = $4, settled_at = now()
      WHERE reference = $1 AND account_id = $2 AND environment = $3 AND status = 'held'
  RETURNING variant_id AS "variantId", warehouse_id AS "warehouseId", quantity`,
    { bind: [reference, tenant.accountId, tenant.environment, status], type: QueryTypes.SELECT, transaction: tx },
  );
  return rows
    .map((row) => ({ variantId: row.variantId, warehouseId: row.warehouseId, quantity: Number(row.quantity) }))
    .sort((a, b) => (a.variantId === b.variantId ? cmp(a.warehouseId, b.warehouseId) : cmp(a.variantId, b.variantId)));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
