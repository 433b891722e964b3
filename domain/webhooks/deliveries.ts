import { ForeignKeyConstraintError, QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { newId } from '../../lib/ids';
import type { Environment, SystemEndpointKind, WebhookAttemptStatus } from '../../db/models';
import { audit } from '../../db/outbox';

/** Document 2: after this many consecutive failed attempts (across all its events) an endpoint is disabled. */
export const AUTO_DISABLE_THRESHOLD = 20;

export interface ClaimedEvent {
  id: string;
  accountId: string;
  environment: Environment;
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

export interface FanOutTarget {
  eventId: string;
  endpointId: string;
  url: string;
  deliveryEpoch: number;
}

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
  // RETURNING has no order of its own: the outer query restores created_at, id.
  const events = await sequelize.query<ClaimedEvent>(
    `WITH claimed AS (
       UPDATE events SET published_at = now()
        WHERE id IN (SELECT id
                       FROM events
                      WHERE published_at IS NULL
                      ORDER BY created_at, id
                      LIMIT :limit
                        FOR UPDATE SKIP LOCKED)
       RETURNING id, account_id, environment, type, data, created_at
     )
     SELECT id, account_id AS "accountId", environment, type, data, created_at AS "createdAt"
       FROM claimed
      ORDER BY created_at, id`,
    { type: QueryTypes.SELECT, replacements: { limit }, transaction: tx },
  );
  if (events.length === 0) return { events, targets: [] };
  const targets = await sequelize.query<FanOutTarget>(
    `SELECT ev.id AS "eventId", ep.id AS "endpointId", ep.url, ep.delivery_epoch AS "deliveryEpoch"
       FROM events ev
       JOIN webhook_endpoints ep
         ON ep.account_id = ev.account_id AND ep.environment = ev.environment AND ep.active
        AND (cardinality(ep.events) = 0 OR ev.type = ANY (ep.events))
      WHERE ev.id IN (:ids)
      ORDER BY ev.created_at, ev.id, ep.id`,
    { type: QueryTypes.SELECT, replacements: { ids: events.map((e) => e.id) }, transaction: tx },
  );
  return { events, targets };
}

export interface EndpointForAttempt {
  active: boolean;
  deliveryEpoch: number;
  secretSealed: string;
  systemKind: SystemEndpointKind | null;
  /** Set when this attempt was already recorded (the activity ran before): its recorded status. */
  recordedStatus: WebhookAttemptStatus | null;
}

/** The endpoint as an attempt needs it right before sending, scoped to the delivery's workspace and environment. */
export async function loadEndpointForAttempt(
  sequelize: Sequelize,
  key: { endpointId: string; accountId: string; environment: Environment; attemptKey: string },
): Promise<EndpointForAttempt | null> {
  const [row] = await sequelize.query<EndpointForAttempt>(
    `SELECT ep.active, ep.delivery_epoch AS "deliveryEpoch", ep.secret_sealed AS "secretSealed",
            ep.system_kind AS "systemKind", at.status AS "recordedStatus"
       FROM webhook_endpoints ep
       LEFT JOIN webhook_delivery_attempts at ON at.attempt_key = :attemptKey
      WHERE ep.id = :endpointId AND ep.account_id = :accountId AND ep.environment = :environment`,
    { type: QueryTypes.SELECT, replacements: key },
  );
  return row ?? null;
}

export interface AttemptToRecord {
  accountId: string;
  environment: Environment;
  endpointId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  /** Recorded once: a second run of the same attempt changes nothing. */
  attemptKey: string;
  /** The X-Service-Delivery-Id this send carried. */
  deliveryId: string;
  url: string;
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  scheduledAt: Date;
  /** Delay before the next attempt if this one fails; null when it is the last. */
  retryDelayMs: number | null;
}

export interface RecordedAttempt {
  /** False when the endpoint no longer exists (deleted while the request was in flight). */
  endpointExists: boolean;
  /** The endpoint is (now) inactive: no further attempt may be made. */
  endpointDisabled: boolean;
  status: WebhookAttemptStatus;
}

const INSERT_ATTEMPT = `
  INSERT INTO webhook_delivery_attempts
    (id, account_id, environment, endpoint_id, event_id, event_type, attempt, attempt_key, delivery_id, url, status,
     status_code, duration_ms, error, scheduled_at, next_attempt_at)
  VALUES (:id, :accountId, :environment, :endpointId, :eventId, :eventType, :attempt, :attemptKey, :deliveryId, :url, :status,
     :statusCode, :durationMs, :error, :scheduledAt, :nextAttemptAt)
  ON CONFLICT (attempt_key) DO NOTHING
  RETURNING id`;

const attemptValues = (a: AttemptToRecord, status: WebhookAttemptStatus, nextAttemptAt: Date | null) => ({
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
      // One statement (the hot path): log the success and, only if this attempt is new, end the failure
      // streak. The count is rewritten only when non-zero, so concurrent successes do not queue on the row.
      await sequelize.query(
        `WITH inserted AS (${INSERT_ATTEMPT})
         UPDATE webhook_endpoints SET consecutive_failures = 0
          WHERE id = :endpointId AND consecutive_failures <> 0 AND EXISTS (SELECT 1 FROM inserted)`,
        { replacements: attemptValues(a, 'succeeded', null) },
      );
      return { endpointExists: true, endpointDisabled: false, status: 'succeeded' };
    }
    return await sequelize.transaction(async (tx) => {
      const [endpoint] = await sequelize.query<{ active: boolean; consecutiveFailures: number }>(
        `SELECT active, consecutive_failures AS "consecutiveFailures" FROM webhook_endpoints WHERE id = :endpointId FOR UPDATE`,
        { type: QueryTypes.SELECT, replacements: { endpointId: a.endpointId }, transaction: tx },
      );
      if (!endpoint) return { endpointExists: false, endpointDisabled: true, status: 'failed' as const };

      const failures = endpoint.consecutiveFailures + 1;
      const disableNow = endpoint.active && failures >= AUTO_DISABLE_THRESHOLD;
      const retrying = a.retryDelayMs !== null && endpoint.active && !disableNow;
      const status: WebhookAttemptStatus = retrying ? 'retry_scheduled' : 'failed';
      const nextAttemptAt = retrying ? new Date(Date.now() + (a.retryDelayMs ?? 0)) : null;
      const inserted = await sequelize.query<{ id: string }>(INSERT_ATTEMPT, {
        type: QueryTypes.SELECT,
        transaction: tx,
        replacements: attemptValues(a, status, nextAttemptAt),
      });
      if (inserted.length === 0) return { endpointExists: true, endpointDisabled: !endpoint.active, status };

      await sequelize.query(
        `UPDATE webhook_endpoints
            SET consecutive_failures = :failures,
                active = active AND NOT :disableNow,
                delivery_epoch = delivery_epoch + CASE WHEN :disableNow THEN 1 ELSE 0 END,
                updated_at = CASE WHEN :disableNow THEN now() ELSE updated_at END
          WHERE id = :endpointId`,
        { replacements: { failures, disableNow, endpointId: a.endpointId }, transaction: tx },
      );
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
