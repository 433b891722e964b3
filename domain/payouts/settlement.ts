import type { Sequelize, Transaction } from 'sequelize';
import { appendLedgerEntry, pendingOfSession } from '../../db/ledger';
import type { Environment } from '../../db/models';
import { checkoutCreditDue, clearSettlementDue, dueSettlements, lockSessionCurrency, recordSettlementDue, settledAmountOf } from '../../db/settlements';
import type { Tenant } from '../../db/tenancy';
import type { Config } from '../../lib/config';
import { newId } from '../../lib/ids';
import type { Logger } from '../../lib/logger';
import type { SettlementResult, SettlementSchedule, SettlementSweepResult } from '../../workflows/messages';

/**
 * Settlement (ARCHITECTURE.md): a completed session's amount is credited to `pending` and moves to `available` once
 * it is the environment's settlement delay old, released by the due-time sweep (`settleDueCredits`, run by the
 * `settlement-sweep` schedule); `settlement:<cs>` workflows recorded before the sweep still run to their end.
 * Both settle through `settleCheckoutCredit`, once (docs/decisions/payouts.md).
 */

/** SETTLEMENT_DELAY in live, TEST_SETTLEMENT_DELAY in test. */
export function settlementDelayMs(config: Pick<Config, 'SETTLEMENT_DELAY' | 'TEST_SETTLEMENT_DELAY'>, environment: Environment): number {
  return environment === 'live' ? config.SETTLEMENT_DELAY : config.TEST_SETTLEMENT_DELAY;
}

/**
 * Marks the session's credit due to settle. Call it in the transaction that writes the session's `checkout_credit`,
 * so the sweep finds every credit, exactly when it exists.
 */
export function recordCreditDue(tx: Transaction, { sessionId }: { sessionId: string }): Promise<void> {
  return recordSettlementDue(tx, sessionId);
}

/**
 * When the session's credit settles: the credit's ledger time plus the delay, so a start delayed by a Temporal
 * outage settles no later for it, and how long that is from now, both by the database's clock (the one that stamped
 * the credit). Null when the session has no credit (no settlement start is recorded without one).
 */
export async function settlementSchedule(
  sequelize: Sequelize,
  config: Pick<Config, 'SETTLEMENT_DELAY' | 'TEST_SETTLEMENT_DELAY'>,
  tenant: Tenant,
  sessionId: string,
): Promise<SettlementSchedule | null> {
  const credit = await checkoutCreditDue(sequelize, tenant, sessionId, settlementDelayMs(config, tenant.environment));
  return credit ? { dueAt: credit.dueAt.toISOString(), waitMs: credit.waitMs } : null;
}

/**
 * Moves what is still pending of the session (its credit less what refunds took) to `available`, as one ledger row
 * `settlement` keyed by the session: a retried or repeated run finds that row and answers what it moved. The
 * session's row lock orders it with refunds, which take that lock before reading the session's pending part.
 * Nothing is written when refunds took it all. The credit's due mark goes in the same transaction, whichever path
 * (the sweep or an old `settlement:<cs>` run) settled it.
 */
export async function settleCheckoutCredit(sequelize: Sequelize, tenant: Tenant, sessionId: string): Promise<SettlementResult> {
  return sequelize.transaction(async (tx) => {
    const currency = await lockSessionCurrency(sequelize, tx, tenant, sessionId);
    if (currency === undefined) throw new Error(`checkout session ${sessionId} does not exist in ${tenant.accountId}/${tenant.environment}`);
    await clearSettlementDue(sequelize, tx, sessionId);
    const settled = await settledAmountOf(sequelize, tx, sessionId);
    if (settled !== undefined) return { settledAmount: settled, currency };
    const pending = Math.max(await pendingOfSession(tx, sessionId), 0);
    if (pending > 0) {
      await appendLedgerEntry(tx, tenant, {
        id: newId('txn'),
        type: 'settlement',
        sourceId: sessionId,
        checkoutSessionId: sessionId,
        currency,
        pendingDelta: -pending,
        availableDelta: pending,
      });
    }
    return { settledAmount: pending, currency };
  });
}

/** Credits read per batch of a sweep, earliest due first. */
export const SWEEP_BATCH_SIZE = 500;
/** A sweep starts no new batch after this long; the next one (an interval later) goes on. */
export const SWEEP_BUDGET_MS = 60_000;

/**
 * Settles every credit that is due (credit time plus its environment's delay, by the database's clock), in
 * batches, each credit in its own `settleCheckoutCredit` transaction: the same ledger row, lock order and answer
 * as the per-session workflow, so sweeps that overlap each other or an old run settle each credit once. A credit
 * that fails is logged and left marked for the next sweep, which ends this one (so it is not read again at once).
 * `progress` is called after each credit (the activity's heartbeat).
 */
export async function settleDueCredits(
  deps: { sequelize: Sequelize; config: Pick<Config, 'SETTLEMENT_DELAY' | 'TEST_SETTLEMENT_DELAY'>; logger: Logger },
  { batchSize = SWEEP_BATCH_SIZE, budgetMs = SWEEP_BUDGET_MS, progress }: { batchSize?: number; budgetMs?: number; progress?: () => void } = {},
): Promise<SettlementSweepResult> {
  const { sequelize, config, logger } = deps;
  const delays = { test: settlementDelayMs(config, 'test'), live: settlementDelayMs(config, 'live') };
  const startedAt = Date.now();
  const result: SettlementSweepResult = { settled: 0, nothingPending: 0, failed: 0, budgetSpent: false };
  for (;;) {
    const batch = await dueSettlements(sequelize, delays, batchSize);
    for (const due of batch) {
      try {
        const { settledAmount } = await settleCheckoutCredit(sequelize, { accountId: due.accountId, environment: due.environment }, due.sessionId);
        if (settledAmount > 0) result.settled += 1;
        else result.nothingPending += 1;
      } catch (err) {
        result.failed += 1;
        logger.error({ err, sessionId: due.sessionId, accountId: due.accountId }, 'settling a due checkout credit failed; the next sweep tries again');
      }
      progress?.();
    }
    if (batch.length < batchSize || result.failed > 0) return result;
    if (Date.now() - startedAt >= budgetMs) return { ...result, budgetSpent: true };
  }
}
