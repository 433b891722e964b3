import { z } from 'zod';
import { patchBody } from '../../lib/patch-body';
import { multiLine, singleLine } from '../../lib/text';

/**
 * What inventory writes may carry: the bounds of document 1 and the limits it leaves open
 * (docs/decisions/inventory.md).
 */

const MAX_INT4 = 2_147_483_647;
/** The largest change one adjustment may make: far beyond any real count, far below where sums could overflow. */
export const MAX_ADJUST_DELTA = 1_000_000_000;

const id = singleLine({ min: 1, max: 100, trim: false });
const optionalText = (max: number) => singleLine({ min: 1, max }).nullable().optional();

const warehouseFields = {
  name: singleLine({ min: 1, max: 100 }),
  // Street lines may be written on several lines.
  address: multiLine({ min: 1, max: 500, trim: true }).nullable().optional(),
  city: optionalText(100),
  postal: optionalText(20),
  phone: optionalText(30),
  isDefault: z
    .boolean()
    .optional()
    .meta({ description: 'true makes this the default warehouse and demotes the previous one; the first warehouse is the default whatever is sent' }),
};

export const CreateWarehouseBody = z.object(warehouseFields).strict().meta({ id: 'CreateWarehouseBody' });
export type CreateWarehouseBody = z.infer<typeof CreateWarehouseBody>;

export const UpdateWarehouseBody = patchBody(
  z
    .object({ ...warehouseFields, name: warehouseFields.name.optional() })
    .strict(),
  'UpdateWarehouseBody',
);
export type UpdateWarehouseBody = z.infer<typeof UpdateWarehouseBody>;

const variantFields = {
  name: singleLine({ min: 1, max: 200 }),
  sku: optionalText(50),
  priceDelta: z
    .int()
    .optional()
    .meta({ description: 'Whole currency units added to the product price (negative allowed); the sum must stay at least 1. Default 0.' }),
  costPrice: z.int().min(0).nullable().optional().meta({ description: 'Smallest currency unit' }),
  lowStockThreshold: z.int().min(0).max(MAX_INT4).nullable().optional().meta({ description: 'Listed by GET /v1/inventory/low-stock once available stock is at or below it' }),
  isDefault: z
    .boolean()
    .optional()
    .meta({ description: 'true makes this the product’s default variant and demotes the previous one; the first variant is the default whatever is sent' }),
};

export const CreateVariantBody = z
  .object({ productId: id.meta({ description: 'An own, non-archived product' }), ...variantFields })
  .strict()
  .meta({ id: 'CreateVariantBody' });
export type CreateVariantBody = z.infer<typeof CreateVariantBody>;

/** Every create field but `productId` (a variant stays with its product: sending it is 400). */
export const UpdateVariantBody = patchBody(
  z
    .object({ ...variantFields, name: variantFields.name.optional() })
    .strict(),
  'UpdateVariantBody',
);
export type UpdateVariantBody = z.infer<typeof UpdateVariantBody>;

/** Document 1's adjustment reasons: each moves `available` by `delta`. */
export const AVAILABLE_REASONS = [
  'manual_adjust',
  'refund_restock',
  'transfer_in',
  'transfer_out',
  'damaged',
  'returned_to_supplier',
  'initial_stock',
  'import',
] as const;

/**
 * Ours, for `incoming` (stock on order from suppliers): `supplier_ordered` moves `incoming` by `delta` (negative
 * cancels an order); `supplier_received` (positive) moves `delta` from `incoming` to `available`.
 */
export const INCOMING_REASONS = ['supplier_ordered', 'supplier_received'] as const;

export const ADJUST_REASONS = [...AVAILABLE_REASONS, ...INCOMING_REASONS] as const;
export type AdjustReason = (typeof ADJUST_REASONS)[number];

export const AdjustStockBody = z
  .object({
    variantId: id,
    warehouseId: id,
    delta: z
      .int()
      .min(-MAX_ADJUST_DELTA)
      .max(MAX_ADJUST_DELTA)
      .refine((d) => d !== 0, 'must not be 0')
      .meta({ description: 'Positive adds, negative removes; taking `available` below zero is 409 INSUFFICIENT_STOCK' }),
    reason: z.enum(ADJUST_REASONS),
    note: multiLine({ max: 500 }).nullable().optional(),
    reference: optionalText(200).meta({ description: 'What the change belongs to, e.g. the order id of a refund_restock' }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.reason === 'supplier_received' && body.delta < 0) {
      ctx.addIssue({ code: 'custom', path: ['delta'], message: 'supplier_received takes a positive delta (what arrived)' });
    }
  })
  .meta({ id: 'AdjustStockBody' });
export type AdjustStockBody = z.infer<typeof AdjustStockBody>;
