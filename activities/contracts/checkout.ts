import type { CheckoutSessionStatus } from '../../workflows/messages';

/** One session, as every checkout activity addresses it. */
export interface CheckoutActivityInput {
  accountId: string;
  environment: 'test' | 'live';
  sessionId: string;
}

export interface CheckoutFulfilmentPlan {
  /** The steps to run in order, each keyed by its name within the session (e.g. `discount`, `delivery:1`). */
  steps: string[];
}

/** What a fulfilment step did: applied now, or found applied by an earlier try. */
export type FulfilmentStepOutcome = 'applied' | 'already_applied';

/** The checkout-session workflow's activities (activities/checkout.ts). */
export type CheckoutActivities = {
  expireCheckoutIfOpen(input: CheckoutActivityInput): Promise<Exclude<CheckoutSessionStatus, 'open'>>;
  planCheckoutFulfilment(input: CheckoutActivityInput): Promise<CheckoutFulfilmentPlan>;
  runCheckoutFulfilmentStep(input: CheckoutActivityInput & { step: string }): Promise<FulfilmentStepOutcome>;
};
