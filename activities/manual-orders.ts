import type { Sequelize } from 'sequelize';
import type { StepOutcome } from '../domain/checkout';
import { createManualOrderFulfilment } from '../domain/manual-orders';
import type { Config } from '../lib/config';
import type { CryptoBox } from '../lib/crypto-box';
import type { ManualOrderFulfilmentPlan, ManualOrderInput } from '../workflows/messages';
import type { ManualOrderActivities } from './contracts/manual-orders';

const tenantOf = (input: ManualOrderInput) => ({ accountId: input.accountId, environment: input.environment });

/** The manual-order workflow's steps: each a transaction that applies its effect once (domain/manual-orders/fulfilment.ts). */
export function createManualOrderActivities(deps: { sequelize: Sequelize; config: Config; box: CryptoBox }): ManualOrderActivities {
  const fulfilment = createManualOrderFulfilment(deps);
  return {
    async planManualOrderFulfilment(input: ManualOrderInput): Promise<ManualOrderFulfilmentPlan> {
      return { steps: await fulfilment.plan(tenantOf(input), input.orderId) };
    },
    runManualOrderFulfilmentStep(input: ManualOrderInput & { step: string }): Promise<StepOutcome> {
      return fulfilment.runStep(tenantOf(input), input.orderId, input.step);
    },
  };
}
