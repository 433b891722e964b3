/** The inventory area's entry: what routers, activities, the worker and other areas use of it. */
export { resolveCartVariants, unitPriceOf } from './cart-variants';
export { toMovementDto } from './dto';
export { AdjustStockBody, CreateVariantBody, CreateWarehouseBody, UpdateVariantBody, UpdateWarehouseBody } from './inputs';
export { commitReservations, releaseReservations, reserveForLines } from './reservations';
export type { ReservationOwner } from './reservations';
export { createStockService } from './service';
export { moveStock } from './stock';
export { createVariantService } from './variants';
export { createWarehouseService } from './warehouses';
