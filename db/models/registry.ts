/** Every model, one per table: a new table adds one line here. */
export { Account } from './account';
export { ApiKey } from './api-key';
export { AuditLog } from './audit-log';
export { BlogPost } from './blog-post';
export { Certification } from './certification';
export { CustomDomain } from './custom-domain';
export { DiscountCode } from './discount-code';
export { DiscountRedemption } from './discount-redemption';
export { Event } from './event';
export { IdempotencyKey } from './idempotency-key';
export { PortfolioItem } from './portfolio-item';
export { Product } from './product';
export { ProductFile } from './product-file';
export { ReferralLink } from './referral-link';
export { Testimonial } from './testimonial';
export { WebhookDeliveryAttempt } from './webhook-delivery-attempt';
export { WebhookEndpoint } from './webhook-endpoint';
