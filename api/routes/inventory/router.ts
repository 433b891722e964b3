import { z } from 'zod';
import { ApiRouter } from '../../endpoint';
import { pageQuery } from '../../pagination';
import type { RouteDeps } from '../route-deps';
import {
  AdjustStockBody,
  CreateVariantBody,
  CreateWarehouseBody,
  InventoryIdParams,
  ListMovementsQuery,
  ListVariantsQuery,
  LowStockRow,
  StockMovement,
  StockQuery,
  StockRow,
  UpdateVariantBody,
  UpdateWarehouseBody,
  Variant,
  Warehouse,
} from './schemas';

/** Inventory of the fulfillment module: every route answers 409 fulfillment_module_disabled while it is off. */
export function inventoryRouter(deps: RouteDeps) {
  const { warehouses, variants, stock } = deps.services;
  return new ApiRouter('/v1/inventory', 'Inventory', deps)
    .add({
      method: 'post',
      path: '/warehouses',
      summary: 'Create a warehouse; the first one, or one sent with `isDefault: true`, becomes the default',
      access: 'secret',
      module: 'fulfillment',
      body: CreateWarehouseBody,
      response: Warehouse,
      status: 201,
      handler: async ({ auth, body }) => ({ data: await warehouses.create(auth, body) }),
    })
    .add({
      method: 'get',
      path: '/warehouses',
      summary: 'List active warehouses, newest first (archived ones are hidden)',
      access: 'secret',
      module: 'fulfillment',
      query: pageQuery(),
      response: z.array(Warehouse),
      paginated: true,
      handler: async ({ auth, query }) => warehouses.list(auth, query),
    })
    .add({
      method: 'get',
      path: '/warehouses/:id',
      summary: 'Retrieve an active warehouse (404 NOT_FOUND when missing, archived or another workspace’s)',
      access: 'secret',
      module: 'fulfillment',
      params: InventoryIdParams,
      response: Warehouse,
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => ({ data: await warehouses.retrieve(auth, params.id) }),
    })
    .add({
      method: 'patch',
      path: '/warehouses/:id',
      summary: 'Update a warehouse; `isDefault: true` moves the default here (`false` on the default is 409 INVALID_STATE)',
      access: 'secret',
      module: 'fulfillment',
      params: InventoryIdParams,
      body: UpdateWarehouseBody,
      response: Warehouse,
      errors: ['NOT_FOUND', 'INVALID_STATE'],
      handler: async ({ auth, params, body }) => ({ data: await warehouses.update(auth, params.id, body) }),
    })
    .add({
      method: 'delete',
      path: '/warehouses/:id',
      summary: 'Archive a warehouse: hidden, stock kept, no new adjustments (the default only as the last active one)',
      access: 'secret',
      module: 'fulfillment',
      params: InventoryIdParams,
      response: Warehouse,
      errors: ['NOT_FOUND', 'INVALID_STATE'],
      handler: async ({ auth, params }) => ({ data: await warehouses.archive(auth, params.id) }),
    })
    .add({
      method: 'post',
      path: '/variants',
      summary: 'Create a variant of an own, active product; the first becomes the default and sets the product’s hasVariants',
      access: 'secret',
      module: 'fulfillment',
      body: CreateVariantBody,
      response: Variant,
      status: 201,
      handler: async ({ auth, body }) => ({ data: await variants.create(auth, body) }),
    })
    .add({
      method: 'get',
      path: '/variants',
      summary: 'List active variants, newest first (`productId` filter)',
      access: 'secret',
      module: 'fulfillment',
      query: ListVariantsQuery,
      response: z.array(Variant),
      paginated: true,
      handler: async ({ auth, query }) => variants.list(auth, query),
    })
    .add({
      method: 'get',
      path: '/variants/:id',
      summary: 'Retrieve a variant (archived ones too)',
      access: 'secret',
      module: 'fulfillment',
      params: InventoryIdParams,
      response: Variant,
      handler: async ({ auth, params }) => ({ data: await variants.retrieve(auth, params.id) }),
    })
    .add({
      method: 'patch',
      path: '/variants/:id',
      summary: 'Update a variant (`productId` cannot change); `isDefault: true` moves the product’s default here',
      access: 'secret',
      module: 'fulfillment',
      params: InventoryIdParams,
      body: UpdateVariantBody,
      response: Variant,
      errors: ['INVALID_STATE'],
      handler: async ({ auth, params, body }) => ({ data: await variants.update(auth, params.id, body) }),
    })
    .add({
      method: 'delete',
      path: '/variants/:id',
      summary: 'Archive a variant; the default variant cannot be archived (409 INVALID_STATE)',
      access: 'secret',
      module: 'fulfillment',
      params: InventoryIdParams,
      response: Variant,
      errors: ['INVALID_STATE'],
      handler: async ({ auth, params }) => ({ data: await variants.archive(auth, params.id) }),
    })
    .add({
      method: 'get',
      path: '/stock',
      summary: 'Stock of a variant: one row per active warehouse, the default first, zeros where never stocked',
      access: 'secret',
      module: 'fulfillment',
      query: StockQuery,
      response: z.array(StockRow),
      errors: ['RESOURCE_NOT_FOUND'],
      handler: async ({ auth, query }) => ({ data: await stock.stock(auth, query.variantId) }),
    })
    .add({
      method: 'post',
      path: '/adjust',
      summary: 'Adjust stock: one movement, answered; taking available below zero is 409 INSUFFICIENT_STOCK',
      access: 'secret',
      module: 'fulfillment',
      body: AdjustStockBody,
      response: StockMovement,
      status: 201,
      errors: ['RESOURCE_NOT_FOUND', 'NOT_FOUND', 'INVALID_STATE', 'INSUFFICIENT_STOCK'],
      handler: async ({ auth, body }) => ({ data: await stock.adjust(auth, body) }),
    })
    .add({
      method: 'get',
      path: '/movements',
      summary: 'Stock movements, oldest first in the order they happened (`variantId`, `warehouseId` filters)',
      access: 'secret',
      module: 'fulfillment',
      query: ListMovementsQuery,
      response: z.array(StockMovement),
      paginated: true,
      errors: ['RESOURCE_NOT_FOUND', 'NOT_FOUND'],
      handler: async ({ auth, query }) => stock.movements(auth, query),
    })
    .add({
      method: 'get',
      path: '/low-stock',
      summary: 'Active variants with a threshold whose available stock, summed over the active warehouses, is at or below it',
      access: 'secret',
      module: 'fulfillment',
      query: pageQuery(),
      response: z.array(LowStockRow),
      paginated: true,
      handler: async ({ auth, query }) => stock.lowStock(auth, query),
    }).router;
}
