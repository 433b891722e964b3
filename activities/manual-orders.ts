import type { Sequelize } from 'sequelize';
import type { StepOutcome } from '../domain/checkout';
import { createManualOrderFulfillment } from '../domain/manual-orders';
import type { Config } from '../lib/config';
import type { CryptoBox } from '../lib/crypto-box';
import type { ManualOrderFulfillmentPlan, ManualOrderInput } from '../workflows/messages';
import type { ManualOrderActivities } from './contracts/manual-orders';

const tenantOf = (input: ManualOrderInput) => ({ accountId: input.accountId, environment: input.environment });

/** The manual-order workflow's steps: each a transaction that applies its effect once (domain/manual-orders/fulfillment.ts). */
export function createManualOrderActivities(deps: { sequelize: Sequelize; config: Config; box: CryptoBox }): ManualOrderActivities {
  const fulfillment = createManualOrderFulfillment(deps);
  return {
    async planManualOrderFulfillment(input: ManualOrderInput): Promise<ManualOrderFulfillmentPlan> {
      return { steps: await fulfillment.plan(tenantOf(input), input.orderId) };
    },
    runManualOrderFulfillmentStep(input: ManualOrderInput & { step: string }): Promise<StepOutcome> {
      return fulfillment.runStep(tenantOf(input), input.orderId, input.step);
    },
  };
}
