import { QueryTypes, type Attributes, type Sequelize, type Transaction } from 'sequelize';
import { selectColumns } from './columns';
import { StockMovement, Variant, type Currency, type StockActorType, type StockMoveKind } from './models';
import { connectionOf } from './outbox';
import type { Statement } from './pagination';
import { plainQuery, type PlainStatement } from './plain-query';
import type { Tenant } from './tenancy';

/**
 * Inventory reads and the statement of a stock change, in plain SQL. The rules (which changes are allowed,
 * the errors) live in domain/inventory; these only say how to read and write the rows.
 */

/** A variant row with what its price needs from its product (bigint columns may arrive as strings). */
export interface VariantReadRow {
  id: string;
  accountId: string;
  environment: string;
  productId: string;
  sku: string | null;
  name: string;
  priceDelta: number | string;
  costPrice: number | string | null;
  lowStockThreshold: number | null;
  isDefault: boolean;
  archived: boolean;
  createdAt: Date | string;
  updatedAt: Date | string;
  productPrice: number | string;
  currency: Currency;
}

export interface VariantReadFilters {
  id?: string;
  productId?: string;
  /** Archived variants too (a retrieve by id); lists leave them out. */
  archived?: boolean;
  afterId?: string;
}

/** A page of variants (or one), newest first, each with its product's price and currency. */
export function variantReadStatement(tenant: Tenant, filters: VariantReadFilters, limit: number): Statement {
  const values: unknown[] = [];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const where = [
    `v.account_id = ${bind(tenant.accountId)}`,
    `v.environment = ${bind(tenant.environment)}`,
    ...(filters.archived ? [] : ['NOT v.archived']),
    ...(filters.id !== undefined ? [`v.id = ${bind(filters.id)}`] : []),
    ...(filters.productId !== undefined ? [`v.product_id = ${bind(filters.productId)}`] : []),
    ...(filters.afterId !== undefined ? [`v.id < ${bind(filters.afterId)}`] : []),
  ];
  return {
    text: `SELECT ${selectColumns(Variant, 'v')}, p.price AS "productPrice", p.currency
      FROM variants v JOIN products p ON p.id = v.product_id
     WHERE ${where.join(' AND ')}
     ORDER BY v.id DESC
     LIMIT ${bind(limit)}`,
    values,
  };
}

export async function readVariant(sequelize: Sequelize, tenant: Tenant, id: string, tx?: Transaction): Promise<VariantReadRow | undefined> {
  const { text, values } = variantReadStatement(tenant, { id, archived: true }, 1);
  const [row] = await sequelize.query<VariantReadRow>(text, { bind: values, type: QueryTypes.SELECT, transaction: tx });
  return row;
}

/** A page of variants (variantReadStatement) as a named prepared statement, like every list page. */
export function readVariantPage(sequelize: Sequelize, tenant: Tenant, filters: VariantReadFilters, limit: number): Promise<VariantReadRow[]> {
  const { text, values } = variantReadStatement(tenant, filters, limit);
  return plainQuery<VariantReadRow>(sequelize, text, values);
}

/** A buyer-facing variant of a published product, with its stock summed over the active warehouses. */
export interface PublicVariantRow {
  id: string;
  productId: string;
  sku: string | null;
  name: string;
  priceDelta: number | string;
  isDefault: boolean;
  available: number | string;
}

/** The non-archived variants of one product, default first, then in creation order. */
export function publicVariantsStatement(tenant: Tenant, productId: string): Statement {
  return {
    text: `SELECT v.id, v.product_id AS "productId", v.sku, v.name, v.price_delta AS "priceDelta", v.is_default AS "isDefault",
        COALESCE((SELECT sum(s.available) FROM stock_levels s JOIN warehouses w ON w.id = s.warehouse_id AND NOT w.archived
                   WHERE s.variant_id = v.id), 0) AS available
      FROM variants v
     WHERE v.account_id = $1 AND v.environment = $2 AND v.product_id = $3 AND NOT v.archived
     ORDER BY v.is_default DESC, v.id`,
    values: [tenant.accountId, tenant.environment, productId],
  };
}

/** Runs a statement built by publicVariantsStatement, named and prepared: the storefront's product page sends it. */
export function readPublicVariantRows(sequelize: Sequelize, { text, values }: Statement): Promise<PublicVariantRow[]> {
  return plainQuery<PublicVariantRow>(sequelize, text, values);
}

/**
 * The per-tenant lock on which warehouse is the default: exclusive for every write that can move it, shared for a
 * reservation, which reads the default and then share-locks warehouses in its own order. A default move (which
 * locks two warehouse rows in its order) therefore never runs while a reservation holds warehouse locks, so
 * neither can wait on the other in a cycle.
 */
export const SHARED_DEFAULTS_LOCK_SQL = 'SELECT pg_advisory_xact_lock_shared(hashtext($1))';
export const warehouseDefaultsLockKey = (tenant: Tenant) => `warehouse-default:${tenant.accountId}:${tenant.environment}`;

export async function lockWarehouseDefaults(tx: Transaction, tenant: Tenant, mode: 'exclusive' | 'shared'): Promise<void> {
  await connectionOf(tx).query(mode === 'shared' ? SHARED_DEFAULTS_LOCK_SQL : 'SELECT pg_advisory_xact_lock(hashtext($1))', {
    bind: [warehouseDefaultsLockKey(tenant)],
    type: QueryTypes.SELECT,
    transaction: tx,
  });
}

export interface StockBalances {
  available: number;
  reserved: number;
  incoming: number;
}

export interface StockKey {
  variantId: string;
  warehouseId: string;
}

type BalanceColumns = { available: string | number; reserved: string | number; incoming: string | number };
const toBalances = (row: BalanceColumns): StockBalances => ({ available: Number(row.available), reserved: Number(row.reserved), incoming: Number(row.incoming) });

/**
 * One stock change in one statement: the guarded UPDATE of the stock row and the INSERT of its movement (a
 * data-modifying CTE), so the row lock the UPDATE takes is held across one round trip fewer — every mover of a
 * variant queues on it (docs/benchmark-method.md). The UPDATE moves the row only if no balance would go below zero;
 * PostgreSQL re-checks that guard on the newest row version after waiting for the lock, so concurrent movers
 * queue and none passes a stale check. The movement is inserted from the UPDATE's RETURNING, so it records the
 * balances the change left and exists exactly when the row moved: no row (the guard failed, or the row does not
 * exist yet) writes nothing and returns nothing. Exported so the bench's ceilings send the very same statement; its
 * RETURNING list comes from the model, so it is built on first use.
 */
let moveStockText: string | undefined;
export const moveStockSql = () => (moveStockText ??= `WITH moved AS (
  UPDATE stock_levels
     SET available = available + $5, reserved = reserved + $6, incoming = incoming + $7, updated_at = clock_timestamp()
   WHERE variant_id = $1 AND warehouse_id = $2 AND account_id = $3 AND environment = $4
     AND available + $5 >= 0 AND reserved + $6 >= 0 AND incoming + $7 >= 0
  RETURNING available, reserved, incoming
)
INSERT INTO stock_movements (id, account_id, environment, variant_id, warehouse_id, kind, reason,
    delta, balance, reserved_delta, reserved_balance, incoming_delta, incoming_balance, actor_type, actor_id, reference, note)
SELECT $8, $3, $4, $1, $2, $9, $10, $5, moved.available, $6, moved.reserved, $7, moved.incoming, $11, $12, $13, $14
  FROM moved
RETURNING ${selectColumns(StockMovement)}`);

export interface StockChange extends StockKey {
  id: string;
  kind: StockMoveKind;
  reason: string;
  deltas: StockBalances;
  actorType: StockActorType;
  actorId: string;
  reference: string | null;
  note: string | null;
}

export function moveStockValues(tenant: Tenant, c: StockChange): unknown[] {
  return [
    c.variantId, c.warehouseId, tenant.accountId, tenant.environment, c.deltas.available, c.deltas.reserved, c.deltas.incoming,
    c.id, c.kind, c.reason, c.actorType, c.actorId, c.reference, c.note,
  ];
}

/**
 * Applies one stock change (moveStockSql) and returns its movement; undefined when a balance would go below zero
 * (nothing written). A (variant, warehouse) never moved has no row: one is created for a change that only adds, and
 * a change that takes from it is refused without writing one. Never raises for insufficiency, so the caller's
 * transaction stays usable (a reservation can try the next warehouse).
 */
export async function applyStockChange(query: PlainStatement, tenant: Tenant, change: StockChange): Promise<MovementRow | undefined> {
  const values = moveStockValues(tenant, change);
  let [row] = await query<MovementRow>(moveStockSql(), values);
  const { deltas } = change;
  if (!row && deltas.available >= 0 && deltas.reserved >= 0 && deltas.incoming >= 0) {
    // Missing (or created by a concurrent mover since): make sure it exists, then move it like any other.
    await query(
      `INSERT INTO stock_levels (variant_id, warehouse_id, account_id, environment) VALUES ($1, $2, $3, $4)
       ON CONFLICT (variant_id, warehouse_id) DO NOTHING`,
      values.slice(0, 4),
    );
    [row] = await query<MovementRow>(moveStockSql(), values);
  }
  return row;
}

/** Whether the variant and the warehouse of a stock change exist in the tenant (undefined when not), and are archived. */
export interface StockTargets {
  variantArchived?: boolean;
  warehouseArchived?: boolean;
}

export const LOCK_STOCK_TARGETS_SQL = `SELECT 'variant' AS target, archived FROM (SELECT archived FROM variants WHERE id = $1 AND account_id = $3 AND environment = $4 FOR SHARE) v
UNION ALL
SELECT 'warehouse' AS target, archived FROM (SELECT archived FROM warehouses WHERE id = $2 AND account_id = $3 AND environment = $4 FOR SHARE) w`;

/**
 * Reads the variant and the warehouse of a stock change with a share lock held to the end of the transaction, so
 * archiving either (which updates its row) waits for the change to commit, and no change lands after an archive.
 */
export async function lockStockTargets(query: PlainStatement, tenant: Tenant, key: StockKey): Promise<StockTargets> {
  const rows = await query<{ target: 'variant' | 'warehouse'; archived: boolean }>(LOCK_STOCK_TARGETS_SQL, [key.variantId, key.warehouseId, tenant.accountId, tenant.environment]);
  const archivedOf = (target: 'variant' | 'warehouse') => rows.find((r) => r.target === target)?.archived;
  return { variantArchived: archivedOf('variant'), warehouseArchived: archivedOf('warehouse') };
}

/** The balances of one stock row as they stand (zeros when never moved), for the answer to a refused change. */
export async function readStockBalances(query: PlainStatement, tenant: Tenant, key: StockKey): Promise<StockBalances> {
  const [row] = await query<BalanceColumns>(
    `SELECT available, reserved, incoming FROM stock_levels WHERE variant_id = $1 AND warehouse_id = $2 AND account_id = $3 AND environment = $4`,
    [key.variantId, key.warehouseId, tenant.accountId, tenant.environment],
  );
  return row ? toBalances(row) : { available: 0, reserved: 0, incoming: 0 };
}

type MovementCounts = 'seq' | 'delta' | 'balance' | 'reservedDelta' | 'reservedBalance' | 'incomingDelta' | 'incomingBalance';

/** A movement as the raw reads return it (bigint columns arrive as strings). */
export type MovementRow = Omit<Attributes<StockMovement>, MovementCounts> & Record<MovementCounts, number | string>;

export interface MovementFilters {
  variantId?: string;
  warehouseId?: string;
  /** The last movement of the previous page: the page continues after it. */
  afterId?: string;
}

/** A page of movements, oldest first in the order they happened (`seq`); the cursor is the last movement's id. */
export function movementPageStatement(tenant: Tenant, filters: MovementFilters, limit: number): Statement {
  const values: unknown[] = [];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const account = bind(tenant.accountId);
  const environment = bind(tenant.environment);
  const where = [
    `m.account_id = ${account}`,
    `m.environment = ${environment}`,
    ...(filters.variantId !== undefined ? [`m.variant_id = ${bind(filters.variantId)}`] : []),
    ...(filters.warehouseId !== undefined ? [`m.warehouse_id = ${bind(filters.warehouseId)}`] : []),
    // An id of another workspace finds no seq, and the page is empty.
    ...(filters.afterId !== undefined
      ? [`m.seq > (SELECT c.seq FROM stock_movements c WHERE c.id = ${bind(filters.afterId)} AND c.account_id = ${account} AND c.environment = ${environment})`]
      : []),
  ];
  return {
    text: `SELECT ${selectColumns(StockMovement, 'm')} FROM stock_movements m WHERE ${where.join(' AND ')} ORDER BY m.seq LIMIT ${bind(limit)}`,
    values,
  };
}

/** A page of movements (movementPageStatement), named and prepared. */
export function readMovementPage(sequelize: Sequelize, tenant: Tenant, filters: MovementFilters, limit: number): Promise<MovementRow[]> {
  const { text, values } = movementPageStatement(tenant, filters, limit);
  return plainQuery<MovementRow>(sequelize, text, values);
}

/** A stock row of the GET stock answer: one per active warehouse, zeros where the variant was never moved. */
export interface StockRow {
  warehouseId: string;
  warehouseName: string;
  variantId: string;
  available: number | string;
  reserved: number | string;
  incoming: number | string;
}

/** The default warehouse first, then the others in creation order. */
export function stockRowsStatement(tenant: Tenant, variantId: string): Statement {
  return {
    text: `SELECT w.id AS "warehouseId", w.name AS "warehouseName", $3::text AS "variantId",
        COALESCE(s.available, 0) AS available, COALESCE(s.reserved, 0) AS reserved, COALESCE(s.incoming, 0) AS incoming
      FROM warehouses w LEFT JOIN stock_levels s ON s.warehouse_id = w.id AND s.variant_id = $3
     WHERE w.account_id = $1 AND w.environment = $2 AND NOT w.archived
     ORDER BY w.is_default DESC, w.id`,
    values: [tenant.accountId, tenant.environment, variantId],
  };
}

/** The variant's stock rows (stockRowsStatement), named and prepared. */
export function readStockRows(sequelize: Sequelize, tenant: Tenant, variantId: string): Promise<StockRow[]> {
  const { text, values } = stockRowsStatement(tenant, variantId);
  return plainQuery<StockRow>(sequelize, text, values);
}

/** A variant at or below its threshold, its stock summed over the active warehouses. */
export interface LowStockRow {
  id: string;
  name: string;
  productId: string;
  sku: string | null;
  lowStockThreshold: number;
  available: number | string;
  reserved: number | string;
  incoming: number | string;
}

/**
 * Active variants of active products that have a threshold and whose available stock, summed over the active
 * warehouses, is at or below it; newest variant first, keyset on its id.
 */
export function lowStockStatement(tenant: Tenant, afterId: string | undefined, limit: number): Statement {
  const values: unknown[] = [tenant.accountId, tenant.environment];
  const bind = (value: unknown) => `$${values.push(value)}`;
  return {
    text: `SELECT v.id, v.name, v.product_id AS "productId", v.sku, v.low_stock_threshold AS "lowStockThreshold",
        COALESCE(sum(s.available), 0) AS available, COALESCE(sum(s.reserved), 0) AS reserved, COALESCE(sum(s.incoming), 0) AS incoming
      FROM variants v
      JOIN products p ON p.id = v.product_id AND NOT p.archived
      LEFT JOIN (stock_levels s JOIN warehouses w ON w.id = s.warehouse_id AND NOT w.archived) ON s.variant_id = v.id
     WHERE v.account_id = $1 AND v.environment = $2 AND NOT v.archived AND v.low_stock_threshold IS NOT NULL
       ${afterId !== undefined ? `AND v.id < ${bind(afterId)}` : ''}
     GROUP BY v.id
    HAVING COALESCE(sum(s.available), 0) <= v.low_stock_threshold
     ORDER BY v.id DESC
     LIMIT ${bind(limit)}`,
    values,
  };
}

/** A page of low-stock variants (lowStockStatement), named and prepared. */
export function readLowStockPage(sequelize: Sequelize, tenant: Tenant, afterId: string | undefined, limit: number): Promise<LowStockRow[]> {
  const { text, values } = lowStockStatement(tenant, afterId, limit);
  return plainQuery<LowStockRow>(sequelize, text, values);
}

/** The least and greatest price delta of a product's active variants (undefined without any), to check a new product price against. */
export async function priceDeltaRange(tx: Transaction, tenant: Tenant, productId: string): Promise<{ least: number; greatest: number } | undefined> {
  const [row] = await connectionOf(tx).query<{ least: string | null; greatest: string | null }>(
    `SELECT min(price_delta) AS least, max(price_delta) AS greatest FROM variants
      WHERE product_id = $1 AND account_id = $2 AND environment = $3 AND NOT archived`,
    { bind: [productId, tenant.accountId, tenant.environment], type: QueryTypes.SELECT, transaction: tx },
  );
  return row?.least == null || row.greatest == null ? undefined : { least: Number(row.least), greatest: Number(row.greatest) };
}
