/** The manual-orders area's entry: what routers, activities, the worker and other areas use of it. */
export { createManualCheckoutService } from './checkout';
export { createManualOrderFulfilment, manualOrderReceipt } from './fulfilment';
export { ManualCheckoutBody, UpdateManualOrderBody } from './inputs';
export { createManualOrderService } from './service';
export { createOrderTrackerService } from './tracker';
