import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Environment, SystemEndpointKind, WebhookAttemptStatus } from './models';

/**
 * The statements of webhook fan-out and delivery (the outbox claim, the delivery log, the endpoint's failure count);
 * the rules (when an endpoint is disabled, what an attempt's status is) live in domain/webhooks/deliveries.ts.
 */

export interface ClaimedEvent {
  id: string;
  accountId: string;
  environment: Environment;
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
  /** Where the event was recorded (lib/tracing.ts, Origin): its deliveries continue that trace. */
  traceContext: Record<string, string> | null;
}

export interface FanOutTarget {
  eventId: string;
  endpointId: string;
  url: string;
  deliveryEpoch: number;
}

/**
 * Locks up to `limit` unpublished outbox rows, oldest first, skipping rows another relay holds, and marks them
 * published in the same statement, in the caller's transaction.
 */
export function claimUnpublishedEvents(sequelize: Sequelize, tx: Transaction, limit: number): Promise<ClaimedEvent[]> {
  // RETURNING has no order of its own: the outer query restores created_at, id.
  return sequelize.query<ClaimedEvent>(
    `WITH claimed AS (
       UPDATE events SET published_at = now()
        WHERE id IN (SELECT id
                       FROM events
                      WHERE published_at IS NULL
                      ORDER BY created_at, id
                      LIMIT :limit
                        FOR UPDATE SKIP LOCKED)
       RETURNING id, account_id, environment, type, data, created_at, trace_context
     )
     SELECT id, account_id AS "accountId", environment, type, data, created_at AS "createdAt", trace_context AS "traceContext"
       FROM claimed
      ORDER BY created_at, id`,
    { type: QueryTypes.SELECT, replacements: { limit }, transaction: tx },
  );
}

/** Every active endpoint of each event's workspace and environment whose filter matches it (empty = all). */
export function fanOutTargetsOf(sequelize: Sequelize, tx: Transaction, eventIds: string[]): Promise<FanOutTarget[]> {
  return sequelize.query<FanOutTarget>(
    `SELECT ev.id AS "eventId", ep.id AS "endpointId", ep.url, ep.delivery_epoch AS "deliveryEpoch"
       FROM events ev
       JOIN webhook_endpoints ep
         ON ep.account_id = ev.account_id AND ep.environment = ev.environment AND ep.active
        AND (cardinality(ep.events) = 0 OR ev.type = ANY (ep.events))
      WHERE ev.id IN (:ids)
      ORDER BY ev.created_at, ev.id, ep.id`,
    { type: QueryTypes.SELECT, replacements: { ids: eventIds }, transaction: tx },
  );
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

/** A row of the delivery log, as the attempt's rules decided it. */
export interface AttemptLogRow {
  id: string;
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
  status: WebhookAttemptStatus;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  scheduledAt: Date;
  nextAttemptAt: Date | null;
}

/** Once per attempt key: a second run of the same attempt inserts nothing. */
const INSERT_ATTEMPT = `
  INSERT INTO webhook_delivery_attempts
    (id, account_id, environment, endpoint_id, event_id, event_type, attempt, attempt_key, delivery_id, url, status,
     status_code, duration_ms, error, scheduled_at, next_attempt_at)
  VALUES (:id, :accountId, :environment, :endpointId, :eventId, :eventType, :attempt, :attemptKey, :deliveryId, :url, :status,
     :statusCode, :durationMs, :error, :scheduledAt, :nextAttemptAt)
  ON CONFLICT (attempt_key) DO NOTHING
  RETURNING id`;

/**
 * With a newly logged attempt: the delivery's other rows still `retry_scheduled` for a later time now say when its
 * next attempt was really made, this one. An operator's retry-now makes it early, and a reset run makes its own
 * attempts while the replaced run's last row still promised one; either way no row is left scheduling an attempt
 * that will not run, and only the newest row of a delivery can point to the future.
 */
const SETTLE_EARLIER_SCHEDULES = `
  UPDATE webhook_delivery_attempts SET next_attempt_at = :scheduledAt
   WHERE event_id = :eventId AND endpoint_id = :endpointId AND status = 'retry_scheduled'
     AND attempt_key <> :attemptKey AND next_attempt_at > :scheduledAt
     AND EXISTS (SELECT 1 FROM inserted)`;

/**
 * One statement: logs a succeeded attempt and, only if it is new, settles the delivery's earlier schedules and ends
 * the endpoint's failure streak. The count is rewritten only when non-zero, so concurrent successes do not queue on
 * the row.
 */
export async function logSucceededAttempt(sequelize: Sequelize, row: AttemptLogRow): Promise<void> {
  await sequelize.query(
    `WITH inserted AS (${INSERT_ATTEMPT}),
          settled AS (${SETTLE_EARLIER_SCHEDULES})
         UPDATE webhook_endpoints SET consecutive_failures = 0
          WHERE id = :endpointId AND consecutive_failures <> 0 AND EXISTS (SELECT 1 FROM inserted)`,
    { replacements: { ...row } },
  );
}

/** The endpoint's state under its row lock (FOR UPDATE), so concurrent failures count one by one; undefined when it is gone. */
export async function lockEndpointFailures(
  sequelize: Sequelize,
  tx: Transaction,
  endpointId: string,
): Promise<{ active: boolean; consecutiveFailures: number } | undefined> {
  const [endpoint] = await sequelize.query<{ active: boolean; consecutiveFailures: number }>(
    `SELECT active, consecutive_failures AS "consecutiveFailures" FROM webhook_endpoints WHERE id = :endpointId FOR UPDATE`,
    { type: QueryTypes.SELECT, replacements: { endpointId }, transaction: tx },
  );
  return endpoint;
}

/**
 * Logs an attempt in the caller's transaction, settling the delivery's earlier schedules as a success does; false
 * when this attempt key was already logged.
 */
export async function logAttempt(sequelize: Sequelize, tx: Transaction, row: AttemptLogRow): Promise<boolean> {
  const inserted = await sequelize.query<{ id: string }>(`WITH inserted AS (${INSERT_ATTEMPT}), settled AS (${SETTLE_EARLIER_SCHEDULES}) SELECT id FROM inserted`, {
    type: QueryTypes.SELECT,
    transaction: tx,
    replacements: { ...row },
  });
  return inserted.length > 0;
}

/**
 * A disabled endpoint's pending deliveries are dropped (its epoch moved; their workflows end without sending): the
 * last row of each delivery that still promises a next attempt says so no longer. It becomes `failed` (dropped) with
 * no next attempt, in the transaction that disables the endpoint, so the log never lists an attempt that cannot run.
 */
export async function dropPendingRetries(sequelize: Sequelize, tx: Transaction, endpointId: string): Promise<void> {
  await sequelize.query(
    `UPDATE webhook_delivery_attempts a SET status = 'failed', next_attempt_at = NULL
      WHERE a.endpoint_id = :endpointId AND a.status = 'retry_scheduled'
        AND NOT EXISTS (SELECT 1 FROM webhook_delivery_attempts later
                         WHERE later.endpoint_id = a.endpoint_id AND later.event_id = a.event_id AND later.scheduled_at > a.scheduled_at)`,
    { replacements: { endpointId }, transaction: tx },
  );
}

/** Writes the endpoint's failure count; `disableNow` also deactivates it and bumps its delivery epoch (stopping pending retries). */
export async function writeEndpointFailures(
  sequelize: Sequelize,
  tx: Transaction,
  endpoint: { endpointId: string; failures: number; disableNow: boolean },
): Promise<void> {
  await sequelize.query(
    `UPDATE webhook_endpoints
            SET consecutive_failures = :failures,
                active = active AND NOT :disableNow,
                delivery_epoch = delivery_epoch + CASE WHEN :disableNow THEN 1 ELSE 0 END,
                updated_at = CASE WHEN :disableNow THEN now() ELSE updated_at END
          WHERE id = :endpointId`,
    { replacements: { failures: endpoint.failures, disableNow: endpoint.disableNow, endpointId: endpoint.endpointId }, transaction: tx },
  );
  if (endpoint.disableNow) await dropPendingRetries(sequelize, tx, endpoint.endpointId);
}
