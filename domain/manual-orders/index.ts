/** The manual-orders area's entry: what routers, activities, the worker and other areas use of it. */
export { createManualCheckoutService } from './checkout';
export { createManualOrderFulfillment, manualOrderReceipt } from './fulfillment';
export { ManualCheckoutBody, UpdateManualOrderBody } from './inputs';
export { createManualOrderService } from './service';
export { createOrderTrackerService } from './tracker';
