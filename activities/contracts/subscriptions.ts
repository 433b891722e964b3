import type { SubscriptionStepResult, TestClockInput } from '../../workflows/messages';

/** One subscription, as its workflow addresses it. */
export interface SubscriptionActivityInput {
  accountId: string;
  environment: 'test' | 'live';
  subscriptionId: string;
}

/** The subscription workflow's activity (activities/subscriptions.ts). */
export type SubscriptionActivities = {
  applySubscriptionStep(input: SubscriptionActivityInput & { now: number }): Promise<SubscriptionStepResult>;
};

/** The test-clock workflow's activities (activities/subscriptions.ts). */
export type TestClockActivities = {
  beginTestClockAdvance(input: TestClockInput): Promise<{ frozenTime: number; subscriptionIds: string[] } | null>;
  isSubscriptionClosed(input: TestClockInput & { subscriptionId: string }): Promise<boolean>;
  finishTestClockAdvance(input: TestClockInput & { frozenTime: number }): Promise<void>;
};
