import { condition, continueAsNew, getExternalWorkflowHandle, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { SubscriptionActivities } from '../activities/contracts/subscriptions';
import { subscriptionPhase, type SubscriptionLifecycleState } from '../domain/subscriptions/states';
import { lifecycleState } from './lifecycle';
import {
  subscriptionChanged,
  subscriptionClockAdvanced,
  subscriptionStateQuery,
  testClockSubscriptionCaughtUp,
  workflowIds,
  type SubscriptionOutcome,
  type SubscriptionStepResult,
  type SubscriptionWorkflowInput,
  type SubscriptionWorkflowState,
} from './messages';
import { workflowNow } from './workflow-time';

/**
 * Each step is one short database transaction under the subscription's row lock, retried until it lands, never
 * half-applied. A local activity: it runs inside the workflow task that needs it, so a renewal costs one task and
 * records one marker instead of three activity events (renewal waves on a test clock, bench/subscription-renewals.ts).
 */
const steps = proxyLocalActivities<SubscriptionActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/**
 * `subscription:sub_…`: drives one subscription through its life (document 2's state table) from creation to cancel:
 * trial, then periods that each begin with their charge (`renewal_charge`) and run on as an `active_period`, dunning
 * retries after a charge falls due unpaid (then canceled, or left `unpaid`), and `paused` periods whose renewals are
 * skipped. Where the subscription is is the state query's `phase` (domain/subscriptions/states.ts).
 *
 * The row is the truth and this workflow is its clock: it plays the steps that fall due (one step activity each,
 * in time order) and then rests in the phase they left until the next step's time or a signal. Which step is due,
 * and what it does, is decided under the row's lock (domain/subscriptions/lifecycle.ts), because pause, resume,
 * plan switch, cancel and payments are written by their requests under the same lock and only signal
 * `subscriptionChanged`: a decision is never taken on a stale row, so the workflow takes none of its own.
 *
 * "Now" is workflow time for a subscription in real time. A subscription on a test clock runs on the clock's
 * time, which the step activity reads from the clock row: the workflow sets no timer and waits for the clock's
 * `subscriptionClockAdvanced` signal, plays every step up to the new time, then acknowledges to the clock's
 * `test-clock:clock_…` workflow (docs/decisions/billing.md, "Test clocks"). Every new period continues as new,
 * so a ten-year subscription keeps a history of one cycle.
 */
export async function subscription(input: SubscriptionWorkflowInput): Promise<SubscriptionOutcome> {
  const lifecycle = lifecycleState<SubscriptionLifecycleState>();
  const state: SubscriptionWorkflowState = { status: 'starting', phase: 'starting', nextAt: null, lastStep: null };
  let woken = false;
  let clockAckOwed = input.clockAckOwed ?? true;
  setHandler(subscriptionStateQuery, () => state);
  setHandler(subscriptionChanged, () => {
    woken = true;
  });
  setHandler(subscriptionClockAdvanced, () => {
    woken = true;
    clockAckOwed = true;
  });

  const target = { accountId: input.accountId, environment: input.environment, subscriptionId: input.subscriptionId };

  /** Tells the clock's workflow this subscription is caught up; a clock with no advance in progress is not listening. */
  async function acknowledge(result: SubscriptionStepResult): Promise<void> {
    clockAckOwed = false;
    if (result.testClockId === null || result.clockTime === null) return;
    try {
      await getExternalWorkflowHandle(workflowIds.testClock(result.testClockId)).signal(testClockSubscriptionCaughtUp, {
        subscriptionId: input.subscriptionId,
        clockTime: result.clockTime,
      });
    } catch {
      // No advance is running (the clock's workflow has closed): nobody waits for this acknowledgement.
    }
  }

  /**
   * Plays every step due by now, one step call each, and answers the last one's result: nothing more is due after
   * it, or it canceled the subscription. A step that begins a period (trial end, renewal, renewal skipped)
   * continues as new here, and so does a long run once Temporal suggests it.
   */
  async function playDueSteps(): Promise<SubscriptionStepResult> {
    for (;;) {
      woken = false;
      const result = await steps.applySubscriptionStep({ ...target, now: workflowNow() });
      if (result.applied !== null) state.lastStep = result.applied;
      if (result.status === 'canceled') return result;
      if (result.cycled || (result.applied !== null && workflowInfo().continueAsNewSuggested)) {
        await continueAsNew<typeof subscription>({ ...input, clockAckOwed, idle: result.dueNow ? undefined : result });
      }
      if (!result.dueNow) return result;
    }
  }

  /** Rests in the phase `result` left: until its next step's time (set by the clock alone on a test clock) or a signal. */
  async function rest(result: SubscriptionStepResult): Promise<void> {
    state.status = result.status;
    lifecycle(result.status);
    state.phase = subscriptionPhase(result);
    state.nextAt = result.nextAt;
    if (clockAckOwed) await acknowledge(result);
    if (result.testClockId !== null || result.nextAt === null) {
      await condition(() => woken);
    } else {
      await condition(() => woken, Math.max(result.nextAt - workflowNow(), 1));
    }
  }

  // A run continued as new with nothing due begins by resting where the last one left off, unless a signal came first.
  let result = input.idle !== undefined && !woken ? input.idle : await playDueSteps();
  // Trial, renewal charge, active period, dunning retries, unpaid, paused: each lasts until its next step or a signal.
  while (result.status !== 'canceled') {
    await rest(result);
    result = await playDueSteps();
  }
  // Canceled: at once, at the period end, or by dunning's final action.
  state.status = 'canceled';
  lifecycle('canceled');
  state.phase = 'canceled';
  if (clockAckOwed) await acknowledge(result);
  return 'canceled';
}
