import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import {
  checkoutCompleted,
  checkoutPaymentSubmitted,
  checkoutStateQuery,
  type CheckoutSessionInput,
  type CheckoutSessionOutcome,
  type CheckoutWorkflowState,
} from './messages';

type Activities = ReturnType<typeof createActivities>;

/**
 * Every step is a database transaction keyed by (session, step), so it is retried until it lands, with backoff
 * and no limit: a step that keeps failing stays visible (and resettable) in the Temporal UI, never half-applied.
 */
const steps = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/**
 * `checkout-session:<cs>`: waits for the payment or the expiry timer, then fulfils the session exactly once.
 *
 * The row is the truth and the signals only wake the workflow: at the deadline it asks the database, which
 * expires an `open` session under its row lock, or answers that the buyer paid (`pending_review`: wait for the
 * merchant, without a deadline) or that it completed (a lost signal: fulfil now). Fulfilment is forward
 * recovery, not compensation: a paid session cannot be un-paid, so each step retries until it lands.
 */
export async function checkoutSession(input: CheckoutSessionInput): Promise<CheckoutSessionOutcome> {
  const state: CheckoutWorkflowState = { step: 'awaiting_payment', status: 'open', currentStep: null };
  let completed = false;
  setHandler(checkoutStateQuery, () => state);
  setHandler(checkoutPaymentSubmitted, () => {
    if (state.step === 'awaiting_payment') {
      state.step = 'awaiting_confirmation';
      state.status = 'pending_review';
    }
  });
  setHandler(checkoutCompleted, () => {
    completed = true;
  });

  const session = { accountId: input.accountId, environment: input.environment, sessionId: input.sessionId };
  // Workflow time (deterministic: the task's start time), so the timer ends at expiresAt on any replay.
  // eslint-disable-next-line no-restricted-properties
  const untilExpiry = Date.parse(input.expiresAt) - Date.now();
  if (!(await condition(() => completed, Math.max(untilExpiry, 0)))) {
    const status = await steps.expireCheckoutIfOpen(session);
    state.status = status;
    if (status === 'expired' || status === 'failed') {
      state.step = 'expired';
      return 'expired';
    }
    if (status === 'pending_review') {
      state.step = 'awaiting_confirmation';
      await condition(() => completed);
    }
  }

  state.step = 'fulfilling';
  state.status = 'completed';
  const plan = await steps.planCheckoutFulfilment(session);
  for (const step of plan.steps) {
    state.currentStep = step;
    await steps.runCheckoutFulfilmentStep({ ...session, step });
  }
  state.currentStep = null;
  state.step = 'fulfilled';
  return 'fulfilled';
}
