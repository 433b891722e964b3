import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { newId } from '../lib/ids';
import { plainQueryIn } from './plain-query';
import type { Tenant } from './tenancy';

/**
 * The workflow-start outbox. A workflow that must run because a change committed (an AI run reserved, a file
 * row deleted) is recorded here in that change's transaction, so the intent exists exactly when the change
 * does; the worker's start relay, or the API right after its commit, starts it and marks the row started.
 * What each `workflowType` means, and how it is started, is decided above this layer (domain/workflow-starters.ts).
 */
export interface WorkflowStartIntent {
  workflowType: string;
  workflowId: string;
  args: unknown;
}

export interface PendingWorkflowStart extends WorkflowStartIntent {
  id: string;
  accountId: string;
  environment: Tenant['environment'];
  attempts: number;
}

/** The statements of the API's own path (record, then claim and settle by id), exported so the bench's ceiling sends them too. */
export const WORKFLOW_START_INSERT_SQL = `INSERT INTO workflow_starts (id, account_id, environment, workflow_type, workflow_id, args) VALUES ($1, $2, $3, $4, $5, $6)`;
export const CLAIM_WORKFLOW_STARTS_BY_ID_SQL = `SELECT id, account_id AS "accountId", environment, workflow_type AS "workflowType", workflow_id AS "workflowId", args, attempts
   FROM workflow_starts
  WHERE started_at IS NULL AND workflow_id = ANY($1)
  ORDER BY next_attempt_at, id
    FOR UPDATE SKIP LOCKED`;
export const MARK_WORKFLOW_STARTS_STARTED_SQL = `UPDATE workflow_starts SET started_at = now(), attempts = attempts + 1, last_error = NULL WHERE id = ANY($1)`;

/** Records the intent inside the caller's transaction; the insert trigger wakes the relay on commit. */
export async function recordWorkflowStart(tx: Transaction, tenant: Tenant, intent: WorkflowStartIntent): Promise<void> {
  await plainQueryIn(tx, WORKFLOW_START_INSERT_SQL, [newId('wfs'), tenant.accountId, tenant.environment, intent.workflowType, intent.workflowId, JSON.stringify(intent.args)]);
}

/**
 * Locks pending starts that are due, oldest first, skipping rows another relay (or an API request) holds:
 * up to `limit` of them, or those of the given workflow ids whatever their due time (the API's own, just
 * committed). The locks belong to the caller's transaction until it settles them.
 */
export async function claimWorkflowStarts(
  sequelize: Sequelize,
  tx: Transaction,
  selection: { limit: number } | { workflowIds: string[] },
): Promise<PendingWorkflowStart[]> {
  // The API's claim follows every durable write: one prepared statement whatever the ids.
  if (!('limit' in selection)) return plainQueryIn<PendingWorkflowStart>(tx, CLAIM_WORKFLOW_STARTS_BY_ID_SQL, [selection.workflowIds]);
  return sequelize.query<PendingWorkflowStart>(
    `SELECT id, account_id AS "accountId", environment, workflow_type AS "workflowType", workflow_id AS "workflowId", args, attempts
       FROM workflow_starts
      WHERE started_at IS NULL AND next_attempt_at <= now()
      ORDER BY next_attempt_at, id
      LIMIT :limit
        FOR UPDATE SKIP LOCKED`,
    { type: QueryTypes.SELECT, replacements: selection, transaction: tx },
  );
}

/** Longest wait between two attempts of a start that keeps failing. */
export const MAX_START_BACKOFF_SECONDS = 30;

/** Marks claimed rows started, and counts failed ones with their error and an exponential backoff. */
export async function settleWorkflowStarts(
  sequelize: Sequelize,
  tx: Transaction,
  started: string[],
  failed: { id: string; error: string }[],
): Promise<void> {
  if (started.length > 0) await plainQueryIn(tx, MARK_WORKFLOW_STARTS_STARTED_SQL, [started]);
  for (const { id, error } of failed) {
    await sequelize.query(
      `UPDATE workflow_starts
          SET attempts = attempts + 1, last_error = :error,
              next_attempt_at = now() + make_interval(secs => least(power(2, attempts + 1), :maxBackoff))
        WHERE id = :id`,
      { replacements: { id, error: error.slice(0, 2000), maxBackoff: MAX_START_BACKOFF_SECONDS }, transaction: tx },
    );
  }
}
