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

/** A fulfillment step; `receiptSender: 'session'` when the workflow sends the receipt itself (absent in older runs). */
export interface FulfillmentStepInput extends CheckoutActivityInput {
  step: string;
  receiptSender?: 'session';
}

/** Why the session's own attempt at the receipt failed, for the hand-off. */
export interface ReceiptFailure extends CheckoutActivityInput {
  error: string;
  /** The SMTP server refused it for good (5xx): given up, not retried. */
  refused: boolean;
}

/** The checkout-session workflow's activities (activities/checkout.ts). */
export type CheckoutActivities = {
  expireCheckoutIfOpen(input: CheckoutActivityInput): Promise<Exclude<CheckoutSessionStatus, 'open'>>;
  planCheckoutFulfillment(input: CheckoutActivityInput): Promise<CheckoutFulfillmentPlan>;
  runCheckoutFulfillmentStep(input: FulfillmentStepInput): Promise<FulfillmentStepOutcome>;
  sendCheckoutReceipt(input: CheckoutActivityInput): Promise<'sent' | 'already_sent' | 'already_failed'>;
  handOffCheckoutReceipt(input: ReceiptFailure): Promise<'handed_off' | 'given_up'>;
};
