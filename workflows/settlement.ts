import { proxyActivities, sleep } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { SettlementInput, SettlementResult } from './messages';

type Activities = ReturnType<typeof createActivities>;

/**
 * Database transactions keyed by the session (the ledger's unique (type, source id)), so each is retried until it
 * lands, with no limit: money cannot be left half-settled, and a step that keeps failing stays visible in the UI.
 */
const steps = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/**
 * `settlement:<cs>`: started in the transaction that credits a completed session's amount to `pending`; waits on a
 * durable timer until the credit is the environment's settlement delay old, then moves what is still pending of
 * that session to `available` in one ledger row, exactly once (docs/decisions/payouts.md).
 */
export async function settlement(input: SettlementInput): Promise<SettlementResult> {
  const { dueAt } = await steps.scheduleSettlement(input);
  // Workflow time (deterministic), so a replay waits for the same timer.
  // eslint-disable-next-line no-restricted-properties
  const wait = Date.parse(dueAt) - Date.now();
  if (wait > 0) await sleep(wait);
  return steps.settleCheckoutCredit(input);
}
