import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { newId } from '../lib/ids';
import { originJson } from './outbox';
import type { Statement } from './pagination';
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
  /** Where the start was recorded (lib/tracing.ts, Origin): the workflow continues that trace and names that request. */
  traceContext: Record<string, string> | null;
}

/** recordWorkflowStart's statement; exported (like the claim's and the mark's) so the bench's ceilings send the very same ones. */
export function workflowStartInsertStatement(tenant: Tenant, intent: WorkflowStartIntent): Statement {
  return {
    text: `INSERT INTO workflow_starts (id, account_id, environment, workflow_type, workflow_id, args, trace_context) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    values: [newId('wfs'), tenant.accountId, tenant.environment, intent.workflowType, intent.workflowId, JSON.stringify(intent.args), originJson()],
  };
}

/**
 * Records the intent inside the caller's transaction; the insert trigger wakes the relay on commit. Record, claim
 * by id and mark follow every durable write (checkout create among them), so they are named prepared statements.
 */
export async function recordWorkflowStart(tx: Transaction, tenant: Tenant, intent: WorkflowStartIntent): Promise<void> {
  const { text, values } = workflowStartInsertStatement(tenant, intent);
  await plainQueryIn(tx, text, values);
}

/** claimWorkflowStarts' statement. */
export function claimWorkflowStartsStatement(selection: { limit: number } | { workflowIds: string[] }): Statement {
  const byId = 'workflowIds' in selection;
  return {
    text: `SELECT id, account_id AS "accountId", environment, workflow_type AS "workflowType", workflow_id AS "workflowId", args, attempts,
            trace_context AS "traceContext"
       FROM workflow_starts
      WHERE started_at IS NULL AND ${byId ? 'workflow_id = ANY($1::text[])' : 'next_attempt_at <= now()'}
      ORDER BY next_attempt_at, id
      ${byId ? '' : 'LIMIT $1'}
        FOR UPDATE SKIP LOCKED`,
    values: [byId ? selection.workflowIds : selection.limit],
  };
}

/** The mark of started rows (settleWorkflowStarts). */
export function markWorkflowStartsStatement(started: string[]): Statement {
  return {
    text: 'UPDATE workflow_starts SET started_at = now(), attempts = attempts + 1, last_error = NULL WHERE id = ANY($1::text[])',
    values: [started],
  };
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
  const { text, values } = claimWorkflowStartsStatement(selection);
  // The API's claim (by id) follows every durable write; the relay's (by limit) runs in the background.
  if ('workflowIds' in selection) return plainQueryIn<PendingWorkflowStart>(tx, text, values);
  return sequelize.query<PendingWorkflowStart>(text, { type: QueryTypes.SELECT, bind: values, transaction: tx });
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
  if (started.length > 0) {
    const { text, values } = markWorkflowStartsStatement(started);
    await plainQueryIn(tx, text, values);
  }
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
