import { QueryTypes, type Sequelize } from 'sequelize';
import type { Environment } from './models';

/**
 * The operator's reads of work that has not gone through (the CLI's `stuck`): each across every workspace, oldest
 * first, at most `limit` rows, with the time it has been waiting. Which workflow each belongs to is named above
 * this layer (domain/stuck-work.ts).
 */

interface Stuck {
  accountId: string;
  environment: Environment;
  /** When the work began to wait: recorded, first failed, or first attempted. */
  since: Date;
}

/** A durable workflow start recorded with its change and not made yet (Temporal down, or refusing it). */
export interface PendingStartRow extends Stuck {
  id: string;
  workflowType: string;
  workflowId: string;
  attempts: number;
  lastError: string | null;
}

export function pendingWorkflowStarts(sequelize: Sequelize, limit: number): Promise<PendingStartRow[]> {
  return sequelize.query<PendingStartRow>(
    `SELECT id, account_id AS "accountId", environment, workflow_type AS "workflowType", workflow_id AS "workflowId",
            attempts, last_error AS "lastError", created_at AS since
       FROM workflow_starts
      WHERE started_at IS NULL
      ORDER BY created_at, id
      LIMIT :limit`,
    { type: QueryTypes.SELECT, replacements: { limit } },
  );
}

/** A domain event in the outbox that no relay has fanned out yet. */
export interface UnrelayedEventRow extends Stuck {
  id: string;
  type: string;
}

export function unrelayedEvents(sequelize: Sequelize, limit: number): Promise<UnrelayedEventRow[]> {
  return sequelize.query<UnrelayedEventRow>(
    `SELECT id, account_id AS "accountId", environment, type, created_at AS since
       FROM events
      WHERE published_at IS NULL
      ORDER BY created_at, id
      LIMIT :limit`,
    { type: QueryTypes.SELECT, replacements: { limit } },
  );
}

/** A webhook delivery whose newest logged attempt failed with a retry to come. */
export interface FailingDeliveryRow extends Stuck {
  eventId: string;
  endpointId: string;
  eventType: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  nextAttemptAt: Date | null;
}

export function failingDeliveries(sequelize: Sequelize, limit: number): Promise<FailingDeliveryRow[]> {
  return sequelize.query<FailingDeliveryRow>(
    `SELECT a.account_id AS "accountId", a.environment, a.event_id AS "eventId", a.endpoint_id AS "endpointId",
            a.event_type AS "eventType", a.attempt, a.status_code AS "statusCode", a.error, a.next_attempt_at AS "nextAttemptAt",
            (SELECT min(f.created_at) FROM webhook_delivery_attempts f WHERE f.event_id = a.event_id AND f.endpoint_id = a.endpoint_id) AS since
       FROM webhook_delivery_attempts a
      WHERE a.status = 'retry_scheduled'
        AND NOT EXISTS (SELECT 1 FROM webhook_delivery_attempts n WHERE n.event_id = a.event_id AND n.endpoint_id = a.endpoint_id AND n.id > a.id)
      ORDER BY since, a.id
      LIMIT :limit`,
    { type: QueryTypes.SELECT, replacements: { limit } },
  );
}

/** A buyer e-mail still pending after a failed attempt (Temporal retries it for a day). */
export interface FailingEmailRow extends Stuck {
  id: string;
  kind: string;
  attempts: number;
  lastError: string | null;
}

export function failingEmails(sequelize: Sequelize, limit: number): Promise<FailingEmailRow[]> {
  return sequelize.query<FailingEmailRow>(
    `SELECT id, account_id AS "accountId", environment, kind, attempts, last_error AS "lastError", created_at AS since
       FROM email_messages
      WHERE status = 'pending' AND last_error IS NOT NULL
      ORDER BY created_at, id
      LIMIT :limit`,
    { type: QueryTypes.SELECT, replacements: { limit } },
  );
}

/** A checkout credit still marked due to settle well past its due time: the settlement sweep is not releasing it. */
export interface OverdueSettlementRow extends Stuck {
  sessionId: string;
}

/** `since` is the credit's due time; listed once it is `graceMs` past that. */
export function overdueSettlements(sequelize: Sequelize, delayMs: Record<Environment, number>, graceMs: number, limit: number): Promise<OverdueSettlementRow[]> {
  const overdue = (environment: Environment, delay: string) => `
    (SELECT checkout_session_id, account_id, environment, credited_at + make_interval(secs => ${delay}::float8 / 1000) AS since
       FROM settlement_dues
      WHERE environment = '${environment}' AND credited_at <= now() - make_interval(secs => (${delay}::float8 + :grace) / 1000)
      ORDER BY credited_at
      LIMIT :limit)`;
  return sequelize.query<OverdueSettlementRow>(
    `SELECT checkout_session_id AS "sessionId", account_id AS "accountId", environment, since
       FROM (${overdue('test', ':test')} UNION ALL ${overdue('live', ':live')}) overdue
      ORDER BY since, checkout_session_id
      LIMIT :limit`,
    { type: QueryTypes.SELECT, replacements: { test: delayMs.test, live: delayMs.live, grace: graceMs, limit } },
  );
}
