import type { ManualOrderFulfillmentPlan, ManualOrderInput } from '../../workflows/messages';
import type { FulfillmentStepOutcome } from './checkout';

/** The manual-order workflow's activities (activities/manual-orders.ts). */
export type ManualOrderActivities = {
  planManualOrderFulfillment(input: ManualOrderInput): Promise<ManualOrderFulfillmentPlan>;
  runManualOrderFulfillmentStep(input: ManualOrderInput & { step: string }): Promise<FulfillmentStepOutcome>;
};
