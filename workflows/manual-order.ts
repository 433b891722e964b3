import { patched, proxyActivities } from '@temporalio/workflow';
import type { ManualOrderActivities } from '../activities/contracts/manual-orders';
import { activityOf, SPEC_SPELLING_PATCH } from './legacy-activity-types';
import type { ManualOrderState } from '../domain/manual-orders/states';
import { lifecycleState } from './lifecycle';
import type { ManualOrderInput, ManualOrderOutcome } from './messages';

/**
 * Every step is a database transaction keyed by (order, step), so it is retried until it lands, with backoff
 * and no limit: a step that keeps failing stays visible (and resettable) in the Temporal UI, never half-applied.
 */
const steps = proxyActivities<ManualOrderActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/**
 * `manual-order:<mord>`: the paid-checkout fulfillment of a manual order the merchant confirmed (deliveries,
 * licence keys, `product.purchased`, the receipt), started once by the confirming transaction's durable start.
 * Forward recovery only: a confirmed payment is not undone, so each step retries until it lands.
 */
export async function manualOrder(input: ManualOrderInput): Promise<ManualOrderOutcome> {
  const lifecycle = lifecycleState<ManualOrderState>();
  lifecycle('fulfilling');
  // A run that began before the activities took the spec's spelling goes on under the types it recorded.
  const legacy = !patched(SPEC_SPELLING_PATCH);
  const plan = await activityOf(steps, 'planManualOrderFulfillment', legacy)(input);
  for (const step of plan.steps) await activityOf(steps, 'runManualOrderFulfillmentStep', legacy)({ ...input, step });
  lifecycle('completed');
  return 'fulfilled';
}
