// The only workflowsPath entry: one file per workflow, re-exported here.
export { maintenancePurge } from './maintenance-purge';
export { fileCleanup } from './file-cleanup';
export { aiGeneration } from './ai-generation';
export { webhookDelivery } from './webhook-delivery';
export { emailDelivery } from './email-delivery';
export { checkoutSession } from './checkout-session';
export { manualOrder } from './manual-order';
export { settlement } from './settlement';
export { payout } from './payout';
export { shipment } from './shipment';
