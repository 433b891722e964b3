/** The shipping area's entry: what routers, activities, the worker and other areas use of it. */
export { createShipmentSteps } from './booking';
export { assertShippingChoice, createShipmentForCheckoutLine, placeFromShippingAddress, shippingChoiceOf } from './create';
export { CancelShipmentBody, PartnerEventBody, RatesBody, UpdateOriginBody, shipmentStatus } from './inputs';
export { PARTNER_SIGNATURE_HEADER, createShippingService } from './service';
export type { ShippingService } from './service';
