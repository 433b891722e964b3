import type { Sequelize } from 'sequelize';
import { Account } from './account';
import { ApiKey } from './api-key';
import { AuditLog } from './audit-log';
import { BlogPost } from './blog-post';
import { Certification } from './certification';
import { CustomDomain } from './custom-domain';
import { Event } from './event';
import { IdempotencyKey } from './idempotency-key';
import { PortfolioItem } from './portfolio-item';
import { Product } from './product';
import { ProductFile } from './product-file';
import { Testimonial } from './testimonial';
import { WebhookDeliveryAttempt } from './webhook-delivery-attempt';
import { WebhookEndpoint } from './webhook-endpoint';

export { Account, ApiKey, AuditLog, Event, IdempotencyKey, PortfolioItem, Testimonial, Certification, Product, ProductFile };
export { WebhookEndpoint, WebhookDeliveryAttempt, CustomDomain, BlogPost };
export type { Plan } from './account';
export type { KeyAccess } from './api-key';
export type { Environment } from './common';
export type { AiStatus, Currency, ProductType } from './product';
export type { ProductFileSource } from './product-file';
export type { WebhookAttemptStatus } from './webhook-delivery-attempt';
export type { SystemEndpointKind } from './webhook-endpoint';

export function initModels(sequelize: Sequelize): void {
  for (const model of [Account, ApiKey, AuditLog, Event, IdempotencyKey, PortfolioItem, Testimonial, Certification, Product, ProductFile, WebhookEndpoint, WebhookDeliveryAttempt, CustomDomain, BlogPost]) model.initModel(sequelize);
}
