import type { Sequelize } from 'sequelize';
import { Account } from './account';
import { ApiKey } from './api-key';
import { AuditLog } from './audit-log';
import { Certification } from './certification';
import { CustomDomain } from './custom-domain';
import { DiscountCode } from './discount-code';
import { DiscountRedemption } from './discount-redemption';
import { EmailMessage } from './email-message';
import { Event } from './event';
import { IdempotencyKey } from './idempotency-key';
import { PortfolioItem } from './portfolio-item';
import { Product } from './product';
import { ProductFile } from './product-file';
import { ReferralLink } from './referral-link';
import { Testimonial } from './testimonial';
import { WebhookDeliveryAttempt } from './webhook-delivery-attempt';
import { WebhookEndpoint } from './webhook-endpoint';

export {
  Account,
  ApiKey,
  AuditLog,
  Certification,
  CustomDomain,
  DiscountCode,
  DiscountRedemption,
  EmailMessage,
  Event,
  IdempotencyKey,
  PortfolioItem,
  Product,
  ProductFile,
  ReferralLink,
  Testimonial,
  WebhookDeliveryAttempt,
  WebhookEndpoint,
};
export type { Plan } from './account';
export type { KeyAccess } from './api-key';
export type { Environment } from './common';
export type { DiscountScope, DiscountType } from './discount-code';
export type { EmailStatus } from './email-message';
export type { AiStatus, Currency, ProductType } from './product';
export type { ProductFileSource } from './product-file';
export type { WebhookAttemptStatus } from './webhook-delivery-attempt';
export type { SystemEndpointKind } from './webhook-endpoint';

/** Every model, one per table (a new table adds one line here and one above). */
const MODELS = [
  Account,
  ApiKey,
  AuditLog,
  Certification,
  CustomDomain,
  DiscountCode,
  DiscountRedemption,
  EmailMessage,
  Event,
  IdempotencyKey,
  PortfolioItem,
  Product,
  ProductFile,
  ReferralLink,
  Testimonial,
  WebhookDeliveryAttempt,
  WebhookEndpoint,
];

export function initModels(sequelize: Sequelize): void {
  for (const model of MODELS) model.initModel(sequelize);
}
