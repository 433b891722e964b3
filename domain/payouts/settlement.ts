import type { Sequelize, Transaction } from 'sequelize';
import { appendLedgerEntry, pendingOfSession } from '../../db/ledger';
import type { Environment } from '../../db/models';
import { checkoutCreditDue, lockSessionCurrency, settledAmountOf } from '../../db/settlements';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import type { Config } from '../../lib/config';
import { newId } from '../../lib/ids';
import type { SettlementResult, SettlementSchedule } from '../../workflows/messages';
import { recordStart } from '../workflow-starts';

/**
 * Settlement (ARCHITECTURE.md): a completed session's amount is credited to `pending` and moves to `available` once
 * it is the environment's settlement delay old, through the durable `settlement:<cs>` workflow (one per session,
 * docs/decisions/payouts.md).
 */

/** SETTLEMENT_DELAY in live, TEST_SETTLEMENT_DELAY in test. */
export function settlementDelayMs(config: Pick<Config, 'SETTLEMENT_DELAY' | 'TEST_SETTLEMENT_DELAY'>, environment: Environment): number {
  return environment === 'live' ? config.SETTLEMENT_DELAY : config.TEST_SETTLEMENT_DELAY;
}

/**
 * Records the session's settlement start. Call it in the transaction that writes the session's `checkout_credit`,
 * so the settlement exists exactly when the credit does; the worker's start relay starts it (or the caller, with
 * `startRecordedNow` and the returned workflow id, after its commit).
 */
export function recordSettlementStart(tx: Transaction, tenant: Tenant, { sessionId }: { sessionId: string }): Promise<string> {
  return recordStart(tx, tenant, { workflowType: 'settlement', input: { ...tenantWhere(tenant), sessionId } });
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
 * Nothing is written when refunds took it all.
 */
export async function settleCheckoutCredit(sequelize: Sequelize, tenant: Tenant, sessionId: string): Promise<SettlementResult> {
  return sequelize.transaction(async (tx) => {
    const currency = await lockSessionCurrency(sequelize, tx, tenant, sessionId);
    if (currency === undefined) throw new Error(`checkout session ${sessionId} does not exist in ${tenant.accountId}/${tenant.environment}`);
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
