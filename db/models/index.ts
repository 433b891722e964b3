import type { Sequelize } from 'sequelize';
import * as registry from './registry';

export * from './registry';
export type { Plan } from './account';
export type { KeyAccess } from './api-key';
export type { LicenseStatus } from './license';
export type { ManualFulfillmentStatus, ManualOrderLine, ManualPaymentMethod, ManualPaymentStatus } from './manual-order';
export { MANUAL_FULFILLMENT_STATUSES, MANUAL_PAYMENT_METHODS, MANUAL_PAYMENT_STATUSES } from './manual-order';
export type { Environment } from './common';
export type { BalanceTransactionType } from './balance-transaction';
export type { CheckoutLineItem, CheckoutSource, CheckoutStatus, PaymentMethod, ShippingAddress } from './checkout-session';
export { CHECKOUT_STATUSES, PAYMENT_METHODS } from './checkout-session';
export type { DeliveryKind } from './delivery';
export type { MembershipRole } from './membership';
export { MEMBERSHIP_ROLES } from './membership';
export type { BillingInterval } from './plan';
export type { InvoiceLineItem, InvoiceStatus } from './invoice';
export { INVOICE_STATUSES } from './invoice';
export { BILLING_INTERVALS } from './plan';
export type { SubscriptionStatus } from './subscription';
export { SUBSCRIPTION_STATUSES } from './subscription';
export type { ChargeReason, ChargeState } from './subscription-charge';
export type { EmailStatus } from './email-message';
export type { DiscountScope, DiscountType } from './discount-code';
export type { PayoutBackend, PayoutStatus } from './payout';
export { PAYOUT_STATUSES } from './payout';
export type { AiStatus, Currency, ProductType } from './product';
export type { ProductFileSource } from './product-file';
export type { StockActorType, StockMoveKind } from './stock-movement';
export type { WebhookAttemptStatus } from './webhook-delivery-attempt';
export type { SystemEndpointKind } from './webhook-endpoint';

export function initModels(sequelize: Sequelize): void {
  for (const model of Object.values(registry)) model.initModel(sequelize);
}
