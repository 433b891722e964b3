import { ActivityFailure, allHandlersFinished, condition, isCancellation, proxyLocalActivities, setHandler, uuid4 } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/contracts/webhooks';
import type { WebhookDeliveryState } from '../domain/webhooks/states';
import { lifecycleState } from './lifecycle';
import { retryWebhookDeliveryNow, type AttemptOutcome, type AttemptRecord, type WebhookDeliveryInput, type WebhookDeliveryResult } from './messages';

/**
 * Each attempt is one activity run with no activity-level retry: this workflow owns the schedule. The
 * timeout sits above the 10 s HTTP deadline (WEBHOOK_HTTP_TIMEOUT_MS) plus the short database round trips
 * around it; a run that exceeds it counts as a failed attempt.
 *
 * A local activity: it runs inside the workflow task, so a delivery costs the server one workflow task per
 * attempt instead of three tasks (docs/decisions/webhooks.md). If the worker dies mid-attempt, the
 * workflow task is retried and the attempt re-runs with the same attempt key, which the activity answers
 * from the delivery log when it had been recorded, and otherwise sends again under a new delivery id.
 */
const WEBHOOK_ATTEMPT_TIMEOUT = '15 seconds';

const { deliverWebhookAttempt } = proxyLocalActivities<WebhookActivities>({
  startToCloseTimeout: WEBHOOK_ATTEMPT_TIMEOUT,
  retry: { maximumAttempts: 1 },
});

/**
 * Delivers one event to one endpoint: first attempt at once, then one retry after each delay of the schedule.
 * An operator's `retryWebhookDeliveryNow` update ends the current wait early (the schedule then goes on from that
 * attempt); recording an attempt brings the log's earlier scheduled times forward to it (domain/webhooks), so the
 * log never promises an attempt that will not run, after a retry now or a `temporal workflow reset` alike.
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const lifecycle = lifecycleState<WebhookDeliveryState>();
  const attempts: AttemptRecord[] = [];
  let waiting = false;
  let retryNow = false;
  let over = false;
  setHandler(
    retryWebhookDeliveryNow,
    async () => {
      if (waiting) retryNow = true;
      // The attempt this retry makes, or the one in flight when it came.
      const awaited = attempts.length + 1;
      await condition(() => attempts.length >= awaited);
      const made = attempts[awaited - 1] as AttemptRecord;
      return { attempt: made.attempt, outcome: made.outcome };
    },
    {
      validator: () => {
        if (over) throw new Error('The delivery is over: it has no attempt left to make');
      },
    },
  );

  const result = await deliver();
  over = true;
  lifecycle(result.status === 'stopped' ? 'stopped' : result.status);
  // A retry-now waiting on the last attempt gets its answer before the run closes.
  await condition(allHandlersFinished);
  return result;

  async function deliver(): Promise<WebhookDeliveryResult> {
    const total = input.retrySchedule.length + 1;
    for (let attempt = 1; attempt <= total; attempt += 1) {
      const retryDelayMs = attempt < total ? (input.retrySchedule[attempt - 1] ?? null) : null;
      lifecycle('delivering');
      let outcome: AttemptOutcome;
      try {
        const { retrySchedule: _schedule, ...delivery } = input;
        const result = await deliverWebhookAttempt({
          ...delivery,
          attempt,
          attemptKey: uuid4(),
          retryDelayMs,
        });
        outcome = result.outcome;
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        // Timed out or crashed before reporting: no answer is a failed attempt like any other.
        outcome = 'failed';
      }
      attempts.push({ attempt, outcome });
      if (outcome === 'succeeded') return { status: 'delivered', attempts };
      if (outcome === 'endpoint_gone' || outcome === 'endpoint_disabled') return { status: 'stopped', attempts };
      if (retryDelayMs === null) break;
      lifecycle('retrying');
      retryNow = false;
      waiting = true;
      try {
        // A timer like sleep's (the same command, so older histories replay), which a retry-now cuts short.
        await condition(() => retryNow, retryDelayMs);
      } catch (err) {
        // Canceled: the endpoint was deleted or disabled (lib/webhooks/stop-deliveries.ts).
        if (isCancellation(err)) lifecycle('stopped');
        throw err;
      } finally {
        waiting = false;
      }
    }
    return { status: 'failed', attempts };
  }
}
