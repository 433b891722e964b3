/** The checkout area's entry: what routers, activities, the worker and other areas use of it. */
export { providerInvoicesOf } from './backends';
export { DEFAULT_CHECKOUT_LIFETIME_MS, MAX_CHECKOUT_LIFETIME_MS, insertCheckoutSession } from './create';
export { expireCheckoutIfOpen, expireProviderInvoiceOf } from './expiry';
export { deliverPurchasedLine } from './fulfillment-delivery';
export { createCheckoutFulfillment } from './fulfillment';
export type { ReceiptSender, StepOutcome } from './fulfillment';
export { createHostedCheckoutService } from './hosted-page';
export type { HostedCheckoutService, HostedCheckoutView, ReceiptItem } from './hosted-page';
export { CreateCheckoutSessionBody, PayCheckoutSessionBody, PixelCookiesBody, RefundCheckoutSessionBody } from './inputs';
export { createOrderPageService } from './order-view';
export type { OrderPageService, OrderView } from './order-view';
export { hostedCheckoutUrl } from './payment-backend';
export { checkoutReceipt, purchaseReceipt } from './receipt';
export { createCheckoutSessionService } from './service';
export type { SalesSeries } from './sales';
export { BuyNowBody, CartCheckoutBody, toShippingAddress } from './storefront-inputs';
export { createStorefrontCheckoutService, describeLines } from './storefront';
export { completeLockedSession } from './transitions';
