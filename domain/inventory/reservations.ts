import type { Transaction } from 'sequelize';
import { lockWarehouseDefaults } from '../../db/inventory';
import {
  fulfillmentEnabled,
  insertReservations,
  mostAvailableInOneWarehouse,
  settleHeldReservations,
  shareLockProductsOf,
  trackedVariantIds,
  warehousesWithEnough,
  type ReservationRow,
} from '../../db/reservations';
import type { Tenant } from '../../db/tenancy';
import { AppError, type ErrorDetail } from '../../lib/errors';
import { moveStock, type StockActor } from './stock';

/**
 * Stock held by a checkout session or an order while it may still be paid (docs/decisions/inventory.md,
 * Reservations): reserved in the transaction that creates it, then released (expiry, cancel) or committed (the
 * goods left) exactly once, moving exactly the (variant, warehouse, quantity) recorded in `stock_reservations`.
 */

/** A priced line as every checkout holds it: a line without a variant reserves nothing. */
export interface ReservationLine {
  lineKey: string;
  variantId: string | null;
  quantity: number;
}

export interface ReservationOwner {
  /** What holds the stock: the `cs_` session, the order id. One reservation per reference. */
  reference: string;
  /** Recorded on the movements: the session's workflow, the key of a merchant's manual order. */
  actor: StockActor;
}

export type Reservation = ReservationRow;

/** Tries the warehouses that had enough when read, in order; the first whose guarded move succeeds holds the stock. */
async function reserveFromFirstWithEnough(tx: Transaction, tenant: Tenant, variantId: string, quantity: number, owner: ReservationOwner): Promise<string | undefined> {
  for (const warehouseId of await warehousesWithEnough(tx, tenant, variantId, quantity)) {
    try {
      await moveStock(tx, tenant, { variantId, warehouseId, kind: 'reserve', quantity, reference: owner.reference, actor: owner.actor });
      return warehouseId;
    } catch (err) {
      // Taken by a concurrent checkout since it was read: moveStock wrote nothing and the transaction is usable.
      if (!(err instanceof AppError && err.code === 'INSUFFICIENT_STOCK')) throw err;
    }
  }
  return undefined;
}

/**
 * Reserves the stock-tracked variants of `lines` for `owner.reference`, in the caller's transaction, while the
 * workspace has the fulfillment module on (read here, as committed: callers need not check it). Tracked means the
 * variant has a stock row in some warehouse; lines without a variant, and untracked variants, reserve nothing.
 * Each variant's quantity (summed over its lines) comes whole from one warehouse: the default if it has enough,
 * else the first other active warehouse (in creation order) that has. Lock order: the variants' products (share, id
 * order), the warehouse default (shared), then each variant in id order (its stock row stays locked only in the
 * warehouse that held it: a refused move locks nothing); so concurrent checkouts, variant writes and default
 * moves cannot deadlock. When any variant is
 * short, throws `409 INSUFFICIENT_STOCK` naming every short one (`details`: `variantId`, `lineKeys`, `requested`,
 * `available` = the most one warehouse has); the caller's transaction must then roll back, which undoes the
 * reservations already moved. Answers what was reserved (empty when nothing was).
 */
export async function reserveForLines(tx: Transaction, tenant: Tenant, lines: ReservationLine[], owner: ReservationOwner): Promise<Reservation[]> {
  const wanted = new Map<string, { quantity: number; lineKeys: string[] }>();
  for (const line of lines) {
    if (line.variantId === null) continue;
    const entry = wanted.get(line.variantId) ?? { quantity: 0, lineKeys: [] };
    entry.quantity += line.quantity;
    entry.lineKeys.push(line.lineKey);
    wanted.set(line.variantId, entry);
  }
  if (wanted.size === 0 || !(await fulfillmentEnabled(tx, tenant.accountId))) return [];
  const tracked = await trackedVariantIds(tx, tenant, [...wanted.keys()]);
  if (tracked.length === 0) return [];

  await shareLockProductsOf(tx, tenant, tracked);
  await lockWarehouseDefaults(tx, tenant, 'shared');
  const reservations: Reservation[] = [];
  const shortages: ErrorDetail[] = [];
  for (const variantId of tracked) {
    const { quantity, lineKeys } = wanted.get(variantId)!;
    const warehouseId = await reserveFromFirstWithEnough(tx, tenant, variantId, quantity, owner);
    if (warehouseId !== undefined) {
      reservations.push({ variantId, warehouseId, quantity });
      continue;
    }
    const available = await mostAvailableInOneWarehouse(tx, tenant, variantId);
    shortages.push({ message: `${quantity} requested, at most ${available} available`, variantId, lineKeys, requested: quantity, available });
  }
  if (shortages.length > 0) {
    throw new AppError('INSUFFICIENT_STOCK', `Not enough stock for this checkout: ${shortages.map((s) => `variant ${String(s.variantId)}: ${s.message}`).join('; ')}`, shortages);
  }
  await insertReservations(tx, tenant, owner.reference, reservations);
  return reservations;
}

/**
 * Settles what `owner.reference` still holds, once: `release` gives it back to `available` (an expired session,
 * a canceled order), `commit` takes it out of `reserved` (the goods left). Not gated on the module: holds made
 * while it was on are settled after it is switched off. Answers what was settled (empty on a repeat).
 */
async function settle(tx: Transaction, tenant: Tenant, owner: ReservationOwner, kind: 'release' | 'commit'): Promise<Reservation[]> {
  const held = await settleHeldReservations(tx, tenant, owner.reference, kind === 'release' ? 'released' : 'committed');
  for (const { variantId, warehouseId, quantity } of held) {
    await moveStock(tx, tenant, { variantId, warehouseId, kind, quantity, reference: owner.reference, actor: owner.actor });
  }
  return held;
}

export const releaseReservations = (tx: Transaction, tenant: Tenant, owner: ReservationOwner) => settle(tx, tenant, owner, 'release');
export const commitReservations = (tx: Transaction, tenant: Tenant, owner: ReservationOwner) => settle(tx, tenant, owner, 'commit');
