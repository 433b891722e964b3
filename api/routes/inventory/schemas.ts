import { z } from 'zod';
import { CURRENCIES } from '../../../db/models/product';
import { STOCK_ACTOR_TYPES, STOCK_MOVE_KINDS } from '../../../db/models/stock-movement';
import { singleLine } from '../../../lib/text';
import { pathId, Timestamp } from '../../openapi';
import { pageQuery } from '../../pagination';

export { AdjustStockBody, CreateVariantBody, CreateWarehouseBody, UpdateVariantBody, UpdateWarehouseBody } from '../../../domain/inventory';

const id = singleLine({ min: 1, max: 100, trim: false });

export const InventoryIdParams = z.object({ id: pathId });

export const ListVariantsQuery = pageQuery().extend({
  productId: id.optional().meta({ description: 'Only the variants of this product' }),
});

export const StockQuery = z.object({ variantId: id.meta({ description: 'Required' }) });

export const ListMovementsQuery = pageQuery().extend({
  variantId: id.optional().meta({ description: 'Only the movements of this variant' }),
  warehouseId: id.optional().meta({ description: 'Only the movements in this warehouse (archived ones included)' }),
});

export const Warehouse = z
  .object({
    id: z.string().meta({ example: 'wh_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    name: z.string(),
    address: z.string().nullable(),
    city: z.string().nullable(),
    postal: z.string().nullable(),
    phone: z.string().nullable(),
    isDefault: z.boolean().meta({ description: 'Exactly one active warehouse is the default (reservations try it first)' }),
    archived: z.boolean().meta({ description: 'true only in the answer to DELETE: archived warehouses are hidden from reads' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Warehouse' });

export const Variant = z
  .object({
    id: z.string().meta({ example: 'var_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    productId: z.string(),
    sku: z.string().nullable(),
    name: z.string(),
    priceDelta: z.int().meta({ description: 'Whole currency units added to the product price' }),
    price: z.int().meta({ description: 'The product price with priceDelta resolved, whole units (at least 1)' }),
    priceCents: z.int().meta({ description: 'The resolved price in the smallest currency unit (USD cents; IDR has none below the rupiah)' }),
    currency: z.enum(CURRENCIES),
    costPrice: z.int().nullable().meta({ description: 'Smallest currency unit' }),
    lowStockThreshold: z.int().nullable(),
    isDefault: z.boolean().meta({ description: 'Exactly one per product' }),
    archived: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Variant' });

export const StockRow = z
  .object({
    warehouseId: z.string(),
    warehouseName: z.string(),
    variantId: z.string(),
    available: z.int().meta({ description: 'Physical stock minus reservations' }),
    reserved: z.int().meta({ description: 'Held against in-flight checkouts' }),
    incoming: z.int().meta({ description: 'On order from suppliers (adjustment reasons supplier_ordered and supplier_received)' }),
  })
  .meta({ id: 'StockRow' });

export const StockMovement = z
  .object({
    id: z.string().meta({ example: 'mvt_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    variantId: z.string(),
    warehouseId: z.string(),
    kind: z.enum(STOCK_MOVE_KINDS).meta({ description: 'adjust (a merchant), reserve, release, commit (a checkout), restock (goods back)' }),
    reason: z.string().meta({ description: "An adjustment's reason; for the other kinds the kind itself" }),
    delta: z.int().meta({ description: 'Change of available' }),
    balance: z.int().meta({ description: 'available after the change' }),
    reservedDelta: z.int(),
    reservedBalance: z.int(),
    incomingDelta: z.int(),
    incomingBalance: z.int(),
    actorType: z.enum(STOCK_ACTOR_TYPES).meta({ description: 'Who moved the stock: a merchant’s API key, or a workflow (a checkout, a refund)' }),
    actorId: z.string().meta({ description: 'The API key id, or the workflow id (e.g. checkout-session:cs_…)' }),
    reference: z.string().nullable().meta({ description: 'What the change belongs to: a cs_ session, an order id, the reference of an adjustment' }),
    note: z.string().nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: 'StockMovement' });

export const LowStockRow = z
  .object({
    variantId: z.string(),
    variantName: z.string(),
    productId: z.string(),
    sku: z.string().nullable(),
    lowStockThreshold: z.int(),
    available: z.int().meta({ description: 'Summed over the active warehouses' }),
    reserved: z.int(),
    incoming: z.int(),
  })
  .meta({ id: 'LowStockRow' });
