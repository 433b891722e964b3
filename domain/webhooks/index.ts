/** The webhooks area's entry: what routers, activities, the worker and other areas use of it. */
export { claimEventsForFanOut, loadEndpointForAttempt, recordAttempt } from './deliveries';
export { createWebhookEndpointService } from './endpoints';
export { CreateWebhookEndpointBody, SendTestEventBody, UpdateWebhookEndpointBody } from './inputs';
export { deliveryTenant, parseDeliveryWorkflowId, retryDeliveryNow, type DeliveryRetried } from './retry';
export { WEBHOOK_DELIVERY_STATES, type WebhookDeliveryState } from './states';
