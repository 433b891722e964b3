import type { Sequelize } from 'sequelize';
import { createSubscriptionLifecycle } from '../domain/subscriptions';
import { createTestClockAdvance } from '../domain/test-clocks';
import type { Config } from '../lib/config';
import type { CryptoBox } from '../lib/crypto-box';
import type { SubscriptionStepResult, TestClockInput } from '../workflows/messages';
import type { SubscriptionActivities, SubscriptionActivityInput, TestClockActivities } from './contracts/subscriptions';

const tenantOf = (input: { accountId: string; environment: 'test' | 'live' }) => ({ accountId: input.accountId, environment: input.environment });

/** The subscription and test-clock workflows' steps (domain/subscriptions/lifecycle.ts, domain/test-clocks/advance.ts). */
export function createSubscriptionActivities({ sequelize, config, box }: { sequelize: Sequelize; config: Config; box: CryptoBox }): SubscriptionActivities & TestClockActivities {
  const lifecycle = createSubscriptionLifecycle({ sequelize, config, box });
  const clocks = createTestClockAdvance();
  return {
    /** Applies the earliest step due by `now` (workflow time, epoch ms; the test clock's time for a clocked subscription). */
    async applySubscriptionStep(input: SubscriptionActivityInput & { now: number }): Promise<SubscriptionStepResult> {
      return lifecycle.applyNextStep(tenantOf(input), input.subscriptionId, new Date(input.now));
    },

    async beginTestClockAdvance(input: TestClockInput): Promise<{ frozenTime: number; subscriptionIds: string[] } | null> {
      return clocks.begin(tenantOf(input), input.clockId);
    },

    async isSubscriptionClosed(input: TestClockInput & { subscriptionId: string }): Promise<boolean> {
      return clocks.isSubscriptionClosed(tenantOf(input), input.subscriptionId);
    },

    async finishTestClockAdvance(input: TestClockInput & { frozenTime: number }): Promise<void> {
      await clocks.finish(tenantOf(input), input.clockId, input.frozenTime);
    },
  };
}
