import { condition, patched, proxyActivities, proxyLocalActivities, setHandler, TemporalFailure } from '@temporalio/workflow';
import type { CheckoutActivities } from '../activities/contracts/checkout';
import { activityOf, SPEC_SPELLING_PATCH } from './legacy-activity-types';
import type { CheckoutSessionState } from '../domain/checkout/states';
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
  const run = <T>(activity: (proxy: typeof steps) => Promise<T>) => (local ? localFirst(() => activity(localSteps), () => activity(steps)) : activity(steps));
  const plan = await run((proxy) => activityOf(proxy, 'planCheckoutFulfillment', legacy)(session));
  for (const step of plan.steps) {
    state.currentStep = step;
    await run((proxy) => activityOf(proxy, 'runCheckoutFulfillmentStep', legacy)({ ...session, step }));
  }
  state.currentStep = null;
  state.step = 'fulfilled';
  lifecycle('completed');
  return 'fulfilled';
}
