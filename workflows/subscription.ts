import { condition, continueAsNew, getExternalWorkflowHandle, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { SubscriptionActivities } from '../activities/contracts/subscriptions';
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
 * `subscription:sub_…`: drives one subscription through document 2's state table for its whole life.
 *
 * The row is the truth and this workflow is its clock. Each turn asks the database to apply the earliest step
 * due by "now" (trial end, renewal, a charge falling due unpaid, a dunning retry, the final action, a deferred
 * cancel, or a payment that settled), one step per activity, in time order, until nothing is due; then it
 * sleeps until the next step's time or a signal. Pause, resume, plan switch, cancel and settled invoices are
 * written by their requests under the same row lock and signal `subscriptionChanged`, so a decision is never
 * taken on a stale row.
 *
 * "Now" is workflow time for a subscription in real time. A subscription on a test clock runs on the clock's
 * time, which the step activity reads from the clock row: the workflow sets no timer and waits for the clock's
 * `subscriptionClockAdvanced` signal, plays every step up to the new time, then acknowledges to the clock's
 * `test-clock:clock_…` workflow (docs/decisions/billing.md, "Test clocks"). Every new period continues as new,
 * so a ten-year subscription keeps a history of one cycle.
 */
export async function subscription(input: SubscriptionWorkflowInput): Promise<SubscriptionOutcome> {
  const state: SubscriptionWorkflowState = { status: 'starting', nextAt: null, lastStep: null };
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

  // The previous run's last answer, when nothing was due: this run starts by waiting, without a step call.
  let known = input.idle;
  for (;;) {
    let result: SubscriptionStepResult;
    if (known !== undefined && !woken) {
      result = known;
      known = undefined;
    } else {
      known = undefined;
      woken = false;
      result = await steps.applySubscriptionStep({ ...target, now: workflowNow() });
      if (result.applied !== null) state.lastStep = result.applied;
      if (result.status === 'canceled') {
        state.status = 'canceled';
        if (clockAckOwed) await acknowledge(result);
        return 'canceled';
      }
      if (result.cycled || (result.applied !== null && workflowInfo().continueAsNewSuggested)) {
        await continueAsNew<typeof subscription>({ ...input, clockAckOwed, idle: result.dueNow ? undefined : result });
      }
      if (result.dueNow) continue;
    }
    state.status = result.status;
    state.nextAt = result.nextAt;
    if (clockAckOwed) await acknowledge(result);
    if (result.testClockId !== null || result.nextAt === null) {
      await condition(() => woken);
    } else {
      await condition(() => woken, Math.max(result.nextAt - workflowNow(), 1));
    }
  }
}
