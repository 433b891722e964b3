import type { CheckoutSessionStatus } from '../../workflows/messages';

/** One session, as every checkout activity addresses it. */
export interface CheckoutActivityInput {
  accountId: string;
  environment: 'test' | 'live';
  sessionId: string;
}

export interface CheckoutFulfillmentPlan {
  /** The steps to run in order, each keyed by its name within the session (e.g. `discount`, `delivery:1`). */
  steps: string[];
}

/** What a fulfillment step did: applied now, or found applied by an earlier try. */
export type FulfillmentStepOutcome = 'applied' | 'already_applied';

/** The checkout-session workflow's activities (activities/checkout.ts). */
export type CheckoutActivities = {
  expireCheckoutIfOpen(input: CheckoutActivityInput): Promise<Exclude<CheckoutSessionStatus, 'open'>>;
  planCheckoutFulfillment(input: CheckoutActivityInput): Promise<CheckoutFulfillmentPlan>;
  runCheckoutFulfillmentStep(input: CheckoutActivityInput & { step: string }): Promise<FulfillmentStepOutcome>;
};
