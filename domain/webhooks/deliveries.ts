import { ForeignKeyConstraintError, type Sequelize, type Transaction } from 'sequelize';
import type { WebhookAttemptStatus } from '../../db/models';
import { audit } from '../../db/outbox';
import {
  claimUnpublishedEvents,
  fanOutTargetsOf,
  loadEndpointForAttempt,
  lockEndpointFailures,
  logAttempt,
  logSucceededAttempt,
  writeEndpointFailures,
  type AttemptLogRow,
  type ClaimedEvent,
  type FanOutTarget,
} from '../../db/webhook-deliveries';
import { newId } from '../../lib/ids';

/** Document 2: after this many consecutive failed attempts (across all its events) an endpoint is disabled. */
export const AUTO_DISABLE_THRESHOLD = 20;

/** The endpoint as an attempt needs it right before sending (db/webhook-deliveries.ts). */
export { loadEndpointForAttempt };

/**
 * Locks up to `limit` unpublished outbox rows, oldest first, skipping rows another relay holds, marks them
 * published in the same statement, and returns them with every active endpoint of the same workspace and
 * environment whose filter matches (empty = all). The mark and the locks belong to the caller's transaction:
 * if anything fails before its commit (a workflow start, say), the rows go back to unpublished.
 */
export async function claimEventsForFanOut(
  sequelize: Sequelize,
  tx: Transaction,
  limit: number,
): Promise<{ events: ClaimedEvent[]; targets: FanOutTarget[] }> {
  const events = await claimUnpublishedEvents(sequelize, tx, limit);
  if (events.length === 0) return { events, targets: [] };
  return { events, targets: await fanOutTargetsOf(sequelize, tx, events.map((e) => e.id)) };
}

/** A sent attempt as the activity saw it; its status and next attempt are for the rules below to decide. */
export type AttemptToRecord = Omit<AttemptLogRow, 'id' | 'status' | 'nextAttemptAt'> & {
  ok: boolean;
  /** Delay before the next attempt if this one fails; null when it is the last. */
  retryDelayMs: number | null;
};

export interface RecordedAttempt {
  /** False when the endpoint no longer exists (deleted while the request was in flight). */
  endpointExists: boolean;
  /** The endpoint is (now) inactive: no further attempt may be made. */
  endpointDisabled: boolean;
  status: WebhookAttemptStatus;
}

const attemptValues = (a: AttemptToRecord, status: WebhookAttemptStatus, nextAttemptAt: Date | null): AttemptLogRow => ({
  id: newId('wha'),
  accountId: a.accountId,
  environment: a.environment,
  endpointId: a.endpointId,
  eventId: a.eventId,
  eventType: a.eventType,
  attempt: a.attempt,
  attemptKey: a.attemptKey,
  deliveryId: a.deliveryId,
  url: a.url,
  status,
  statusCode: a.statusCode,
  durationMs: a.durationMs,
  error: a.error,
  scheduledAt: a.scheduledAt,
  nextAttemptAt,
});

/**
 * Writes the attempt to the delivery log and updates the endpoint's consecutive-failure count atomically
 * (one statement for a success, one transaction for a failure). A failure locks the endpoint row, so concurrent deliveries count one by one; the failure
 * that reaches the threshold disables the endpoint, bumps its delivery epoch (stopping pending retries)
 * and writes the audit entry, exactly once. An attempt already recorded (same attempt key) changes nothing.
 */
export async function recordAttempt(sequelize: Sequelize, a: AttemptToRecord): Promise<RecordedAttempt> {
  try {
    if (a.ok) {
      // One statement (the hot path): log the success and, only if this attempt is new, end the failure streak.
      await logSucceededAttempt(sequelize, attemptValues(a, 'succeeded', null));
      return { endpointExists: true, endpointDisabled: false, status: 'succeeded' };
    }
    return await sequelize.transaction(async (tx) => {
      const endpoint = await lockEndpointFailures(sequelize, tx, a.endpointId);
      if (!endpoint) return { endpointExists: false, endpointDisabled: true, status: 'failed' as const };

      const failures = endpoint.consecutiveFailures + 1;
      const disableNow = endpoint.active && failures >= AUTO_DISABLE_THRESHOLD;
      const retrying = a.retryDelayMs !== null && endpoint.active && !disableNow;
      const status: WebhookAttemptStatus = retrying ? 'retry_scheduled' : 'failed';
      const nextAttemptAt = retrying ? new Date(Date.now() + (a.retryDelayMs ?? 0)) : null;
      if (!(await logAttempt(sequelize, tx, attemptValues(a, status, nextAttemptAt)))) return { endpointExists: true, endpointDisabled: !endpoint.active, status };

      await writeEndpointFailures(sequelize, tx, { endpointId: a.endpointId, failures, disableNow });
      if (disableNow) {
        await audit(tx, { accountId: a.accountId, environment: a.environment }, {
          action: 'webhook_endpoint.disabled',
          actorApiKeyId: null,
          targetType: 'webhook_endpoint',
          targetId: a.endpointId,
          data: { reason: 'consecutive_failures', consecutiveFailures: failures },
        });
      }
      return { endpointExists: true, endpointDisabled: !endpoint.active || disableNow, status };
    });
  } catch (err) {
    // The endpoint was deleted between the send and this insert (its attempts go with it).
    if (err instanceof ForeignKeyConstraintError) return { endpointExists: false, endpointDisabled: true, status: a.ok ? 'succeeded' : 'failed' };
    throw err;
  }
}
