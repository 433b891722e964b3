import type { ManualOrderFulfilmentPlan, ManualOrderInput } from '../../workflows/messages';
import type { FulfilmentStepOutcome } from './checkout';

/** The manual-order workflow's activities (activities/manual-orders.ts). */
export type ManualOrderActivities = {
  planManualOrderFulfilment(input: ManualOrderInput): Promise<ManualOrderFulfilmentPlan>;
  runManualOrderFulfilmentStep(input: ManualOrderInput & { step: string }): Promise<FulfilmentStepOutcome>;
};
