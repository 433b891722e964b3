import type { Attributes } from 'sequelize';
import type { LowStockRow, MovementRow, StockRow, VariantReadRow } from '../../db/inventory';
import type { Warehouse } from '../../db/models';
import { toSmallestUnit } from '../../lib/money';

export const VARIANT_EVENTS = {
  created: 'service.variant.created.v1',
  updated: 'service.variant.updated.v1',
  archived: 'service.variant.archived.v1',
} as const;

const iso = (value: Date | string) => new Date(value).toISOString();

/** The one warehouse shape of every inventory route. */
export function toWarehouseDto(row: Attributes<Warehouse>) {
  return {
    id: row.id,
    accountId: row.accountId,
    name: row.name,
    address: row.address ?? null,
    city: row.city ?? null,
    postal: row.postal ?? null,
    phone: row.phone ?? null,
    isDefault: row.isDefault,
    archived: row.archived,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

export type WarehouseDto = ReturnType<typeof toWarehouseDto>;

/**
 * The one variant shape of the routes and of the created/updated event payloads. `price` is the product's price
 * with the delta resolved (whole units, like the product's), `priceCents` the same in the currency's smallest
 * unit (document 1's absolute price of `service.variant.updated.v1`).
 */
export function toVariantDto(row: VariantReadRow) {
  const price = Number(row.productPrice) + Number(row.priceDelta);
  return {
    id: row.id,
    accountId: row.accountId,
    productId: row.productId,
    sku: row.sku,
    name: row.name,
    priceDelta: Number(row.priceDelta),
    price,
    priceCents: toSmallestUnit(price, row.currency),
    currency: row.currency,
    costPrice: row.costPrice === null ? null : Number(row.costPrice),
    lowStockThreshold: row.lowStockThreshold,
    isDefault: row.isDefault,
    archived: row.archived,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

export type VariantDto = ReturnType<typeof toVariantDto>;

/** A stock movement: what changed (`delta` of `available`, and of `reserved` and `incoming`), what it left, who and why. */
export function toMovementDto(row: MovementRow) {
  return {
    id: row.id,
    accountId: row.accountId,
    variantId: row.variantId,
    warehouseId: row.warehouseId,
    kind: row.kind,
    reason: row.reason,
    delta: Number(row.delta),
    balance: Number(row.balance),
    reservedDelta: Number(row.reservedDelta),
    reservedBalance: Number(row.reservedBalance),
    incomingDelta: Number(row.incomingDelta),
    incomingBalance: Number(row.incomingBalance),
    actorType: row.actorType,
    actorId: row.actorId,
    reference: row.reference ?? null,
    note: row.note ?? null,
    createdAt: iso(row.createdAt),
  };
}

export type MovementDto = ReturnType<typeof toMovementDto>;

/** Document 1's stock row. */
export function toStockRowDto(row: StockRow) {
  return {
    warehouseId: row.warehouseId,
    warehouseName: row.warehouseName,
    variantId: row.variantId,
    available: Number(row.available),
    reserved: Number(row.reserved),
    incoming: Number(row.incoming),
  };
}

export function toLowStockDto(row: LowStockRow) {
  return {
    variantId: row.id,
    variantName: row.name,
    productId: row.productId,
    sku: row.sku,
    lowStockThreshold: row.lowStockThreshold,
    available: Number(row.available),
    reserved: Number(row.reserved),
    incoming: Number(row.incoming),
  };
}
