import { ActivityFailure, ApplicationFailure, condition, patched, proxyActivities, proxyLocalActivities, setHandler, TemporalFailure } from '@temporalio/workflow';
import type { CheckoutActivities, CheckoutActivityInput } from '../activities/contracts/checkout';
import { activityOf, SPEC_SPELLING_PATCH } from './legacy-activity-types';
import type { CheckoutSessionState } from '../domain/checkout/states';
import { EMAIL_SEND_ATTEMPT_MS } from './email-timing';
import { lifecycleState } from './lifecycle';
import {
  checkoutCompleted,
  checkoutPaymentSubmitted,
  checkoutStateQuery,
  type CheckoutSessionInput,
  type CheckoutSessionOutcome,
  type CheckoutWorkflowState,
} from './messages';
import { workflowNow } from './workflow-time';

/**
 * Every step is a database transaction keyed by (session, step), so it is retried until it lands, with backoff
 * and no limit: a step that keeps failing stays visible (and resettable) in the Temporal UI, never half-applied.
 */
const steps = proxyActivities<CheckoutActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/**
 * Fulfillment tries each step as a local activity first: it runs inside the workflow task, so a completion costs the
 * Temporal server one workflow task for all its steps instead of an activity task and a workflow task per step
 * (docs/decisions/checkout.md, "Fulfillment"). A step that fails its local tries runs again as an ordinary activity
 * (`steps`), which retries with backoff and without limit and shows in the Temporal UI as a pending activity with its
 * last failure. Either way a step applies once: each is keyed by (session, step) in the database.
 */
const localSteps = proxyLocalActivities<CheckoutActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
});

/** Marks histories whose fulfillment runs local-first; those recorded before it replay with activities alone. */
const LOCAL_FULFILLMENT_PATCH = 'checkout-fulfilment-local-first';

/**
 * The receipt's one attempt from this workflow, inside its task. Not retried here: a failed attempt hands the
 * receipt to its own `email-delivery` workflow (retries for a day, the stuck-work view, the give-up).
 */
const receiptAttempt = proxyLocalActivities<CheckoutActivities>({ startToCloseTimeout: EMAIL_SEND_ATTEMPT_MS, retry: { maximumAttempts: 1 } });

/** Marks runs that send the receipt themselves; runs recorded before it left the receipt to its email-delivery workflow. */
const RECEIPT_IN_SESSION_PATCH = 'checkout-receipt-in-session';

/** The activities' error type for an SMTP refusal (activities/email.ts): given up, not handed on. */
const EMAIL_REFUSED = 'EmailRefused';

/** The step as a local activity (`local`), then, if its local tries all failed, as an ordinary one (`ordinary`). */
async function localFirst<T>(local: () => Promise<T>, ordinary: () => Promise<T>): Promise<T> {
  try {
    return await local();
  } catch (err) {
    // Whatever ended the local tries (the step's own error, a timeout) is the step's to retry; a bug here is not.
    if (!(err instanceof TemporalFailure)) throw err;
    return ordinary();
  }
}

/**
 * Sends the receipt the `email:receipt` step queued, once, from this workflow: a completion then costs Temporal no
 * e-mail workflow (docs/decisions/email.md, "The checkout receipt"). The sent-log row is the same one its
 * `email-delivery` workflow would send, under the same Message-ID and lease, so a replay after a crash sends nothing
 * twice. A failed attempt is handed on (`run`: local first, then an ordinary activity, retried without limit).
 */
async function sendReceipt(session: CheckoutActivityInput, run: <T>(activity: (proxy: CheckoutActivities) => Promise<T>) => Promise<T>): Promise<void> {
  try {
    await receiptAttempt.sendCheckoutReceipt(session);
  } catch (err) {
    // A local activity's failure arrives as its cause itself (an ApplicationFailure, a TimeoutFailure), not wrapped.
    if (!(err instanceof TemporalFailure)) throw err;
    const cause = err instanceof ActivityFailure ? (err.cause ?? err) : err;
    const refused = cause instanceof ApplicationFailure && cause.type === EMAIL_REFUSED;
    await run((proxy) => proxy.handOffCheckoutReceipt({ ...session, error: cause.message, refused }));
  }
}

/**
 * `checkout-session:<cs>`: waits for the payment or the expiry timer, then fulfils the session exactly once.
 *
 * The row is the truth and the signals only wake the workflow: at the deadline it asks the database, which
 * expires an `open` session under its row lock, or answers that the buyer paid (`pending_review`: wait for the
 * merchant, without a deadline) or that it completed (a lost signal: fulfil now). Fulfillment is forward
 * recovery, not compensation: a paid session cannot be un-paid, so each step retries until it lands.
 */
export async function checkoutSession(input: CheckoutSessionInput): Promise<CheckoutSessionOutcome> {
  const lifecycle = lifecycleState<CheckoutSessionState>();
  const state: CheckoutWorkflowState = { step: 'awaiting_payment', status: 'open', currentStep: null };
  let completed = false;
  // Before the handlers: a payment signal buffered with the start moves it on at once.
  lifecycle('awaiting_payment');
  setHandler(checkoutStateQuery, () => state);
  setHandler(checkoutPaymentSubmitted, () => {
    if (state.step === 'awaiting_payment') {
      state.step = 'awaiting_confirmation';
      state.status = 'pending_review';
      lifecycle('pending_review');
    }
  });
  setHandler(checkoutCompleted, () => {
    completed = true;
  });

  const session = { accountId: input.accountId, environment: input.environment, sessionId: input.sessionId };
  // Workflow time (deterministic: the task's start time), so the timer ends at expiresAt on any replay.
  const untilExpiry = Date.parse(input.expiresAt) - workflowNow();
  if (!(await condition(() => completed, Math.max(untilExpiry, 0)))) {
    const status = await steps.expireCheckoutIfOpen(session);
    state.status = status;
    if (status === 'expired' || status === 'failed') {
      state.step = 'expired';
      lifecycle('expired');
      return 'expired';
    }
    if (status === 'pending_review') {
      state.step = 'awaiting_confirmation';
      lifecycle('pending_review');
      await condition(() => completed);
    }
  }

  state.step = 'fulfilling';
  state.status = 'completed';
  lifecycle('fulfilling');
  const local = patched(LOCAL_FULFILLMENT_PATCH);
  // A run that began fulfilling before the activities took the spec's spelling goes on under the types it recorded.
  const legacy = !patched(SPEC_SPELLING_PATCH);
  const receiptBySession = patched(RECEIPT_IN_SESSION_PATCH);
  const run = <T>(activity: (proxy: typeof steps) => Promise<T>) => (local ? localFirst(() => activity(localSteps), () => activity(steps)) : activity(steps));
  const plan = await run((proxy) => activityOf(proxy, 'planCheckoutFulfillment', legacy)(session));
  for (const step of plan.steps) {
    state.currentStep = step;
    await run((proxy) => activityOf(proxy, 'runCheckoutFulfillmentStep', legacy)({ ...session, step, ...(receiptBySession ? { receiptSender: 'session' as const } : {}) }));
  }
  state.currentStep = null;
  state.step = 'fulfilled';
  lifecycle('completed');
  if (receiptBySession) await sendReceipt(session, run);
  return 'fulfilled';
}
