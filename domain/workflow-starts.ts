import type { Sequelize, Transaction } from 'sequelize';
import { afterCommit } from '../db/request-transaction';
import { tenantWhere, type Tenant } from '../db/tenancy';
import { claimWorkflowStarts, recordWorkflowStart, settleWorkflowStarts } from '../db/workflow-starts';
import type { Logger } from '../lib/logger';
import { withOrigin } from '../lib/tracing';
import { durableWorkflowId, isTemporalUnreachable, type DurableStart, type Starters } from './workflow-starters';

/**
 * Durable starts (docs/decisions/temporal.md): a workflow start that follows a commit is recorded in the
 * committing transaction, then started by whoever claims the row first, the API right after its commit or
 * the worker's start relay, so Temporal being down when the change commits delays the workflow, never loses it.
 */

/** Records `start` in the caller's transaction; returns its workflow id (for `startRecordedNow`). */
export async function recordStart(tx: Transaction, tenant: Tenant, start: DurableStart): Promise<string> {
  const workflowId = durableWorkflowId(start.workflowType, start.input);
  await recordWorkflowStart(tx, tenant, { workflowType: start.workflowType, workflowId, args: start.input });
  return workflowId;
}

/**
 * Records, in the caller's transaction, the signal that makes a subscription's workflow read its row again: sent by the
 * subscription's own requests, by a paid invoice and by a test clock's advance.
 */
export function signalSubscription(tx: Transaction, tenant: Tenant, subscriptionId: string): Promise<string> {
  return recordStart(tx, tenant, { workflowType: 'subscriptionChanged', input: { ...tenantWhere(tenant), subscriptionId } });
}

export interface StartPass {
  claimed: number;
  /** A start failed because Temporal did not answer: the rest would too, so a relay stops its pass. */
  unreachable: boolean;
}

/**
 * Claims pending rows (FOR UPDATE SKIP LOCKED), starts them `concurrency` at a time, and in the same
 * transaction marks each started or counts its failure (with a backoff). A crash before the commit leaves
 * the rows pending; starting one again is harmless ("already started" counts as started, and a repeated
 * ai-generation signal only makes the workflow look at the product once more).
 */
export async function runRecordedStarts(
  sequelize: Sequelize,
  starters: Starters,
  selection: { limit: number } | { workflowIds: string[] },
  { concurrency = 16, timeoutMs }: { concurrency?: number; timeoutMs: number },
): Promise<StartPass> {
  return sequelize.transaction(async (tx) => {
    const rows = await claimWorkflowStarts(sequelize, tx, selection);
    const started: string[] = [];
    const failed: { id: string; error: string }[] = [];
    let unreachable = false;
    let next = 0;
    const lane = async () => {
      while (next < rows.length) {
        const row = rows[next]!;
        next += 1;
        try {
          // In the trace, and under the request id, of whoever recorded the start.
          await withOrigin(row.traceContext, () => starters.startRecorded(row, timeoutMs));
          started.push(row.id);
        } catch (err) {
          unreachable ||= isTemporalUnreachable(err);
          failed.push({ id: row.id, error: err instanceof Error ? err.message : String(err) });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, rows.length) }, lane));
    await settleWorkflowStarts(sequelize, tx, started, failed);
    return { claimed: rows.length, unreachable };
  });
}

/** How long a request waits for Temporal before leaving its start to the relay. */
export const API_START_TIMEOUT_MS = 5_000;

/**
 * After commit, the fast path: the API starts what it just recorded so the workflow runs without waiting for
 * the relay. Best effort; the recorded row is the guarantee, so a failure is logged and never surfaced. Inside a
 * request's transaction (an Idempotency-Key) it waits for that transaction's commit: a workflow must never see
 * a row that may still roll back.
 */
export async function startRecordedNow(
  { sequelize, starters, logger }: { sequelize: Sequelize; starters: Starters; logger: Logger },
  workflowId: string,
): Promise<void> {
  await afterCommit(async () => {
    try {
      await runRecordedStarts(sequelize, starters, { workflowIds: [workflowId] }, { timeoutMs: API_START_TIMEOUT_MS });
    } catch (err) {
      logger.warn({ err, workflowId }, 'could not start the workflow after commit; the start relay will');
    }
  });
}
