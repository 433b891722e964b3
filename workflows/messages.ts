import { defineSearchAttributeKey } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

/**
 * The contract between workflows and everything that starts, signals or serves them (API, worker, activities):
 * task queue, search attributes, workflow and schedule ids, signals, and every workflow's input and output.
 * Both sides import these types from here, never from each other.
 */
export const DEFAULT_TASK_QUEUE = 'commerce';

/** Lets an operator find every workflow of one workspace in the Temporal UI: `AccountId = "acc_…"`. */
export const ACCOUNT_ID = defineSearchAttributeKey('AccountId', 'KEYWORD');

/**
 * Where a tenant workflow is in its life (`awaiting_payment`, `retrying`, `past_due`, …, names from each area's
 * domain/<area>/states.ts), kept current by the workflow: `AccountId = "acc_…" AND LifecycleState = "retrying"`.
 */
export const LIFECYCLE_STATE = defineSearchAttributeKey('LifecycleState', 'KEYWORD');

/** Every custom search attribute the service's workflows use: registered by the worker, npm start and the tests. */
export const SEARCH_ATTRIBUTES = [ACCOUNT_ID, LIFECYCLE_STATE] as const;

export const SCHEDULE_IDS = {
  maintenancePurge: 'maintenance-purge',
  settlementSweep: 'settlement-sweep',
} as const;

export const workflowIds = {
  maintenancePurge: () => 'maintenance-purge',
  /** The schedule's runs (the schedule appends each run's time): one at a time, releasing every due credit. */
  settlementSweep: () => 'settlement-sweep',
  aiGeneration: (productId: string) => `ai-generation:${productId}`,
  fileCleanup: (fileId: string) => `file-cleanup:${fileId}`,
  /** One delivery per (event, endpoint): a second start with the same id is refused, so fan-out can repeat safely. */
  webhookDelivery: (eventId: string, endpointId: string) => `webhook-delivery:${eventId}:${endpointId}`,
  /** One delivery per sent-log row (`eml_…`), itself unique per business key. */
  emailDelivery: (emailId: string) => `email-delivery:${emailId}`,
  /** One per checkout session, for its whole life: expiry, then fulfillment exactly once. */
  checkoutSession: (sessionId: string) => `checkout-session:${sessionId}`,
  /** The paid-checkout fulfillment of one confirmed manual order; never reused, so it runs once. */
  manualOrder: (orderId: string) => `manual-order:${orderId}`,
  /**
   * One per session completed before the settlement sweep: its amount moves from pending to available once, after the
   * settlement delay. No longer started for new sales; kept so recorded starts and running ones finish.
   */
  settlement: (sessionId: string) => `settlement:${sessionId}`,
  /** One per payout, for its whole life: it follows the payout's moves until a final status. */
  payout: (payoutId: string) => `payout:${payoutId}`,
  /** One per subscription for its whole life (continued as new every cycle): trial, renewals, dunning, cancel. */
  subscription: (subscriptionId: string) => `subscription:${subscriptionId}`,
  /** One per test clock: plays an advance through the clock's subscriptions, then sets the clock `ready`. */
  testClock: (clockId: string) => `test-clock:${clockId}`,
  /** One per shipment, for its life with the partner: booking, label, and the local partner's status moves. */
  shipment: (shipmentId: string) => `shipment:${shipmentId}`,
};

type Environment = 'test' | 'live';

// ai-generation ------------------------------------------------------------------------------------------

export interface AiGenerationTarget {
  accountId: string;
  environment: Environment;
  productId: string;
}

export type AiGenerationOutcome = 'completed' | 'failed' | 'skipped';

/** "Look at the product again": sent by signal-with-start on every reservation. */
export const aiGenerationRequested = defineSignal('aiGenerationRequested');

// file-cleanup -------------------------------------------------------------------------------------------

export interface FileCleanupInput {
  fileId: string;
  storageKey: string;
  /** FILE_CLEANUP_DELAY of the API that deleted the row, fixed at start so a config change cannot alter a running timer. */
  delayMs: number;
}

export type FileCleanupOutcome = 'removed' | 'kept';

// webhook-delivery ---------------------------------------------------------------------------------------

/** Everything one delivery needs, fixed at fan-out: the same bytes go out on every attempt, to the URL of that time. */
export interface WebhookDeliveryInput {
  eventId: string;
  eventType: string;
  accountId: string;
  environment: Environment;
  endpointId: string;
  /** The endpoint's delivery epoch at fan-out; disabling the endpoint bumps it and stops this delivery. */
  endpointEpoch: number;
  url: string;
  /** The serialised envelope `{ id, type, createdAt, accountId, data }`. */
  body: string;
  /** Delays in ms between attempts, measured from the previous failure (WEBHOOK_RETRY_SCHEDULE at fan-out). */
  retrySchedule: number[];
}

export type AttemptOutcome = 'succeeded' | 'failed' | 'endpoint_gone' | 'endpoint_disabled';

/** One attempt of a delivery: what the workflow fixed at fan-out, plus this attempt's own numbers. */
export interface AttemptInput extends Omit<WebhookDeliveryInput, 'retrySchedule'> {
  attempt: number;
  /**
   * Identifies this attempt, generated by the workflow so a re-run of the attempt (after a worker crash) is
   * recognised: it is recorded once. Not the X-Service-Delivery-Id, which is new for every send.
   */
  attemptKey: string;
  /** Delay before the next attempt if this one fails; null for the last attempt. */
  retryDelayMs: number | null;
}

export interface AttemptResult {
  outcome: AttemptOutcome;
  statusCode: number | null;
}

export interface AttemptRecord {
  attempt: number;
  outcome: AttemptOutcome;
}

/** What an operator's retry-now did: the attempt it made (or the one already in flight) and its outcome. */
export interface RetryNowResult {
  attempt: number;
  outcome: AttemptOutcome;
}

/**
 * Skips the wait before the next attempt and makes it now; answers once that attempt is recorded. Sent while an
 * attempt is in flight, it answers that attempt's outcome. Rejected (nothing recorded) once the delivery is over.
 */
export const retryWebhookDeliveryNow = defineUpdate<RetryNowResult>('retryWebhookDeliveryNow');

export interface WebhookDeliveryResult {
  /** delivered: a 2xx; failed: every attempt failed, dropped; stopped: the endpoint was deleted or disabled. */
  status: 'delivered' | 'failed' | 'stopped';
  attempts: AttemptRecord[];
}

// email-delivery -----------------------------------------------------------------------------------------

/** One buyer e-mail: its sent-log row (`email_messages`), which holds the rendered message. */
export interface EmailDeliveryInput {
  accountId: string;
  environment: Environment;
  emailId: string;
}

/** sent: the SMTP server accepted it (now or on an earlier run); failed: refused for good or given up after a day. */
export type EmailDeliveryOutcome = 'sent' | 'failed';

// checkout-session ---------------------------------------------------------------------------------------

export interface CheckoutSessionInput {
  accountId: string;
  environment: Environment;
  sessionId: string;
  /** ISO 8601; the durable timer's deadline while the session is `open`. */
  expiresAt: string;
}

/** A checkout session's status (document 2, States: Checkout session). */
export type CheckoutSessionStatus = 'open' | 'pending_review' | 'completed' | 'expired' | 'failed';

/** What the workflow waits for or does now, as an operator sees it through the `checkoutState` query. */
export type CheckoutWorkflowStep =
  | 'awaiting_payment'
  | 'awaiting_confirmation'
  | 'fulfilling'
  | 'fulfilled'
  | 'expired';

export interface CheckoutWorkflowState {
  step: CheckoutWorkflowStep;
  /** The session's status as the workflow last saw it. */
  status: CheckoutSessionStatus;
  /** The fulfillment step running now (e.g. `delivery:1`), null outside fulfillment. */
  currentStep: string | null;
}

/** The buyer paid in local mode: the session is `pending_review` (informational: the row holds the truth). */
export const checkoutPaymentSubmitted = defineSignal('checkoutPaymentSubmitted');
/** The session committed as `completed` (merchant confirm, or the provider's callback): fulfil it. */
export const checkoutCompleted = defineSignal('checkoutCompleted');
export const checkoutStateQuery = defineQuery<CheckoutWorkflowState>('checkoutState');

export type CheckoutSessionOutcome = 'fulfilled' | 'expired';

// manual-order -------------------------------------------------------------------------------------------

/** A confirmed manual order whose digital or licence lines are to be fulfilled. */
export interface ManualOrderInput {
  accountId: string;
  environment: Environment;
  orderId: string;
}

export interface ManualOrderFulfillmentPlan {
  /** The steps to run in order, each keyed by its name within the order (`delivery:1`, `email:receipt`). */
  steps: string[];
}

export type ManualOrderOutcome = 'fulfilled';

// settlement ---------------------------------------------------------------------------------------------

/** A completed session whose credit (`checkout_credit` in the ledger) is to settle. */
export interface SettlementInput {
  accountId: string;
  environment: Environment;
  sessionId: string;
}

/** When the credit becomes available: its ledger time plus the environment's delay, fixed once by an activity. */
export interface SettlementSchedule {
  /** ISO 8601, for the operator reading the history. */
  dueAt: string;
  /** From the activity's read to `dueAt` (0 when already due): the workflow's timer. */
  waitMs: number;
}

/** What the settlement moved to `available` (0 when refunds had already taken all of it). */
export interface SettlementResult {
  settledAmount: number;
  currency: string;
}

/** What one settlement sweep did with the due credits it read. */
export interface SettlementSweepResult {
  /** Credits moved to `available`, or found settled already (by an overlapping run). */
  settled: number;
  /** Credits whose refunds had taken everything: nothing moved, their due mark cleared. */
  nothingPending: number;
  /** Credits whose settling failed (logged), left for the next sweep. */
  failed: number;
  /** True when the sweep stopped at its time budget with credits possibly still due. */
  budgetSpent: boolean;
}

// payout -------------------------------------------------------------------------------------------------

export type PayoutWorkflowStatus = 'pending' | 'in_transit' | 'paid' | 'failed' | 'cancelled';

export interface PayoutWorkflowInput {
  accountId: string;
  environment: Environment;
  payoutId: string;
  /** Present for a payout of the provider backend (payment module): its disbursement is the workflow's first step. */
  backend?: 'provider';
}

/** What submitting a provider payout's disbursement did: the payout's status after it. */
export interface DisbursementSubmission {
  status: PayoutWorkflowStatus;
}

/** A move the payout's row committed (its status after the move); recorded with the move, so never lost. */
export interface PayoutMove {
  status: PayoutWorkflowStatus;
}

/** The payout's row moved (manual: the merchant's mark and cancel routes): the workflow follows it. */
export const payoutMoved = defineSignal<[PayoutMove]>('payoutMoved');

export interface PayoutWorkflowState {
  /** The furthest status the workflow has been told of. */
  status: PayoutWorkflowStatus;
}

export const payoutStateQuery = defineQuery<PayoutWorkflowState>('payoutState');

/** The payout's final status. */
export type PayoutOutcome = 'paid' | 'failed' | 'cancelled';

// subscription -------------------------------------------------------------------------------------------

export interface SubscriptionWorkflowInput {
  accountId: string;
  environment: Environment;
  subscriptionId: string;
  /**
   * Carried across continue-as-new: an advance of the subscription's test clock is still to be acknowledged
   * once every step up to the clock's time has run. Left out at the first start, which acknowledges too, so a
   * clock that advanced before this workflow existed still hears from it.
   */
  clockAckOwed?: boolean;
  /** Carried across continue-as-new: the previous run's last step answer, when nothing more was due then. */
  idle?: SubscriptionStepResult;
}

/**
 * A timed step of the subscription's state table (domain/subscriptions/lifecycle.ts): a charge falling due, a
 * dunning retry, the final action after the last retry, the period's end (trial end, renewal, renewal skipped, or
 * a deferred cancel).
 */
export type SubscriptionTimedStep = 'charge_due' | 'dunning_retry' | 'final_action' | 'period_end';

/** Where a subscription is in its life, as its workflow names it (domain/subscriptions/states.ts). */
export type SubscriptionPhase = 'trial' | 'active_period' | 'renewal_charge' | 'dunning_retries' | 'unpaid' | 'paused' | 'canceled';

/** What one step call did and what the workflow waits for next (activities/subscriptions.ts). */
export interface SubscriptionStepResult {
  /** The step applied (`renewal`, `charge_failed`, `payment_succeeded`, …); null when nothing was due. */
  applied: string | null;
  status: 'active' | 'trialing' | 'past_due' | 'paused' | 'canceled' | 'unpaid';
  /** A new period began (trial end, renewal, skipped renewal): the workflow continues as new. */
  cycled: boolean;
  /** Another step is already due (read after this one, in its transaction). */
  dueNow: boolean;
  /** Epoch ms of the next step in the subscription's time, after this one; null when none is scheduled. */
  nextAt: number | null;
  /** Which step falls due at `nextAt`. Absent from answers recorded before it was added, which only a query reads. */
  next?: SubscriptionTimedStep | null;
  /** Set for a subscription on a test clock: its time is the clock's, which only an advance moves. */
  testClockId: string | null;
  /** The clock's time the step was judged at (epoch ms), for the advance's acknowledgement. */
  clockTime: number | null;
}

export type SubscriptionOutcome = 'canceled';

export interface SubscriptionWorkflowState {
  status: SubscriptionStepResult['status'] | 'starting';
  phase: SubscriptionPhase | 'starting';
  nextAt: number | null;
  lastStep: string | null;
}

/** The row changed (pause, resume, plan switch, cancel) or one of its invoices was paid: read it again. */
export const subscriptionChanged = defineSignal('subscriptionChanged');
/** The subscription's test clock moved: play every step due up to its new time, then acknowledge. */
export const subscriptionClockAdvanced = defineSignal('subscriptionClockAdvanced');
export const subscriptionStateQuery = defineQuery<SubscriptionWorkflowState>('subscriptionState');

// test-clock ---------------------------------------------------------------------------------------------

export interface TestClockInput {
  accountId: string;
  environment: Environment;
  clockId: string;
}

/** An advance was committed (status `advancing`, the new `frozenTime`): play it. */
export const testClockAdvanceRequested = defineSignal('testClockAdvanceRequested');

export interface ClockCaughtUp {
  subscriptionId: string;
  /** The clock time (epoch ms) up to which every due step of the subscription has run. */
  clockTime: number;
}

/** A subscription workflow has run every step due up to `clockTime`. */
export const testClockSubscriptionCaughtUp = defineSignal<[ClockCaughtUp]>('testClockSubscriptionCaughtUp');

// shipment -----------------------------------------------------------------------------------------------

/** One shipment; everything else is read from its row, which holds the truth. */
export interface ShipmentWorkflowInput {
  accountId: string;
  environment: Environment;
  shipmentId: string;
}

/** One simulated move of the local partner: the partner's status name, sent `afterMs` after the move before. */
export interface LocalPartnerStep {
  partnerStatus: string;
  afterMs: number;
}

/**
 * What booking did: `booked` with the partner (its waybill, when the courier gave one at once, and, for the
 * local partner, the schedule it fixed from SHIPPING_LOCAL_SCHEDULE), or `cancelled` (before booking, or the
 * partner refused it).
 */
export type ShipmentBookingResult =
  | { state: 'booked'; partner: 'local' | 'biteship'; waybillId: string | null; schedule: LocalPartnerStep[] | null }
  | { state: 'cancelled' };

/** rendered: the label exists (now or before); no_waybill: the courier has not given one yet; closed: it never will (canceled, or over). */
export type ShipmentLabelResult = 'rendered' | 'no_waybill' | 'closed';

/** A webhook brought the waybill: render the label now rather than at the next check. */
export const shipmentWaybillAssigned = defineSignal('shipmentWaybillAssigned');

/** booked: handed to an HTTP partner, whose webhooks move it from here; else the local partner's last status. */
export type ShipmentOutcome = 'booked' | 'delivered' | 'cancelled' | 'returned';
