import { ActivityFailure, proxyLocalActivities, sleep, uuid4 } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/contracts/webhooks';
import type { AttemptOutcome, AttemptRecord, WebhookDeliveryInput, WebhookDeliveryResult } from './messages';

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

/** Delivers one event to one endpoint: first attempt at once, then one retry after each delay of the schedule. */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const attempts: AttemptRecord[] = [];
  const total = input.retrySchedule.length + 1;
  for (let attempt = 1; attempt <= total; attempt += 1) {
    const retryDelayMs = attempt < total ? (input.retrySchedule[attempt - 1] ?? null) : null;
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
    await sleep(retryDelayMs);
  }
  return { status: 'failed', attempts };
}
