// The only workflowsPath entry: one file per workflow, re-exported here.
export { maintenancePurge } from './maintenance-purge';
export { fileCleanup } from './file-cleanup';
export { aiGeneration } from './ai-generation';
export { webhookDelivery } from './webhook-delivery';
export { emailDelivery } from './email-delivery';
export { checkoutSession } from './checkout-session';
export { manualOrder } from './manual-order';
export { settlement } from './settlement';
export { settlementSweep } from './settlement-sweep';
export { payout } from './payout';
export { subscription } from './subscription';
export { testClock } from './test-clock';
export { shipment } from './shipment';
