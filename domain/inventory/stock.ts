import type { Transaction } from 'sequelize';
import { applyStockChange, lockStockTargets, readStockBalances, type MovementRow, type StockBalances } from '../../db/inventory';
import type { StockActorType, StockMoveKind } from '../../db/models';
import { transactionStatements, type PlainStatement } from '../../db/plain-query';
import type { Tenant } from '../../db/tenancy';
import { AppError, invalidState, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { toMovementDto, type MovementDto } from './dto';
import type { AdjustReason } from './inputs';

/** Who moved stock: the API key of a merchant's adjustment, or the workflow (its id) of a checkout or refund. */
export interface StockActor {
  type: StockActorType;
  id: string;
}

export interface StockMove {
  variantId: string;
  warehouseId: string;
  /**
   * adjust: `available` (or `incoming`, for the supplier reasons) by the signed quantity; reserve: `available` −q,
   * `reserved` +q; release: the reverse; commit: `reserved` −q (the goods left); restock: `available` +q (goods back).
   */
  kind: StockMoveKind;
  /** adjust: the signed, non-zero delta; every other kind: the positive quantity. */
  quantity: number;
  /** adjust: required; the other kinds record their own name. */
  reason?: AdjustReason;
  /** What the change belongs to: a `cs_` session, an order id, a merchant's reference. */
  reference?: string | null;
  note?: string | null;
  actor: StockActor;
}

/** The kinds that put stock to a new use, refused on an archived variant or warehouse; the others settle earlier holds. */
const NEEDS_ACTIVE_TARGETS: ReadonlySet<StockMoveKind> = new Set(['adjust', 'reserve']);

function deltasOf(move: StockMove): StockBalances {
  const q = move.quantity;
  if (!Number.isSafeInteger(q) || (move.kind === 'adjust' ? q === 0 : q <= 0)) {
    throw new RangeError(`stock ${move.kind} needs a ${move.kind === 'adjust' ? 'non-zero' : 'positive'} integer quantity, got ${q}`);
  }
  switch (move.kind) {
    case 'adjust':
      if (!move.reason) throw new RangeError('a stock adjustment needs a reason');
      if (move.reason === 'supplier_ordered') return { available: 0, reserved: 0, incoming: q };
      if (move.reason === 'supplier_received') return { available: q, reserved: 0, incoming: -q };
      return { available: q, reserved: 0, incoming: 0 };
    case 'reserve':
      return { available: -q, reserved: q, incoming: 0 };
    case 'release':
      return { available: q, reserved: -q, incoming: 0 };
    case 'commit':
      return { available: 0, reserved: -q, incoming: 0 };
    case 'restock':
      return { available: q, reserved: 0, incoming: 0 };
  }
}

function insufficient(deltas: StockBalances, now: StockBalances): AppError {
  const details = { ...now };
  if (now.available + deltas.available < 0) {
    return new AppError('INSUFFICIENT_STOCK', `Not enough stock: ${now.available} available in this warehouse, the change takes ${-deltas.available}`, details);
  }
  if (now.incoming + deltas.incoming < 0) {
    return new AppError('INSUFFICIENT_STOCK', `Only ${now.incoming} incoming in this warehouse, the change takes ${-deltas.incoming}`, details);
  }
  return new AppError('INSUFFICIENT_STOCK', `Only ${now.reserved} reserved in this warehouse, the change releases ${-deltas.reserved}`, details);
}

/**
 * The one way stock changes: moves one (variant, warehouse) row and appends exactly one movement row, in one
 * statement in the caller's transaction (db/inventory.ts, moveStockSql), so per row the movements always sum to the balances.
 * Adjustments and reservations also share-lock the variant and the warehouse (archiving either waits, and none
 * lands after an archive). A change that would take a balance below zero throws `409 INSUFFICIENT_STOCK` having
 * written nothing and without failing a statement, so the transaction stays usable (a reservation may try the
 * next warehouse). Not gated on the fulfillment module: callers decide (a reservation made while it was on must
 * still be released after it is switched off). A caller moving several rows in one transaction (a cart) moves
 * them in one order (by variant id, then warehouse id), so two such transactions cannot deadlock.
 */
export async function moveStock(tx: Transaction | PlainStatement, tenant: Tenant, move: StockMove): Promise<MovementDto> {
  return toMovementDto(await moveStockRow(tx, tenant, move));
}

/**
 * moveStock answering the movement's row, for a caller that builds its answer after its COMMIT (an adjustment):
 * the stock row stays locked until then, and every mover of the variant waits on it.
 */
export async function moveStockRow(tx: Transaction | PlainStatement, tenant: Tenant, move: StockMove): Promise<MovementRow> {
  // Its statements go named and prepared, without Sequelize's query pipeline: every stock change of a variant queues on its row lock.
  const query = typeof tx === 'function' ? tx : transactionStatements(tx);
  const deltas = deltasOf(move);
  const key = { variantId: move.variantId, warehouseId: move.warehouseId };
  if (move.kind !== 'release' && move.kind !== 'commit') {
    const targets = await lockStockTargets(query, tenant, key);
    if (targets.variantArchived === undefined) throw notFound('Variant');
    if (targets.warehouseArchived === undefined) throw new AppError('NOT_FOUND', 'Warehouse not found');
    if (NEEDS_ACTIVE_TARGETS.has(move.kind)) {
      if (targets.variantArchived) throw invalidState('The variant is archived; its stock can no longer be adjusted or reserved');
      if (targets.warehouseArchived) throw invalidState('The warehouse is archived; its stock can no longer be adjusted or reserved');
    }
  }
  // Everything the statement needs is ready before it is sent: from its row lock to the COMMIT, nothing else runs here.
  const row = await applyStockChange(query, tenant, {
    id: newId('mvt'),
    ...key,
    kind: move.kind,
    reason: move.reason ?? move.kind,
    deltas,
    actorType: move.actor.type,
    actorId: move.actor.id,
    reference: move.reference ?? null,
    note: move.note ?? null,
  });
  if (!row) throw insufficient(deltas, await readStockBalances(query, tenant, key));
  return row;
}
