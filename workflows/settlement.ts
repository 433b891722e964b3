import { proxyActivities, sleep } from '@temporalio/workflow';
import type { SettlementActivities } from '../activities/contracts/payouts';
import type { SettlementState } from '../domain/payouts/states';
import { lifecycleState } from './lifecycle';
import type { SettlementInput, SettlementResult } from './messages';

/**
 * Database transactions keyed by the session (the ledger's unique (type, source id)), so each is retried until it
 * lands, with no limit: money cannot be left half-settled, and a step that keeps failing stays visible in the UI.
 */
const steps = proxyActivities<SettlementActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/**
 * `settlement:<cs>`: recorded, before the settlement sweep, in the transaction that credits a completed session's
 * amount to `pending`; waits on a durable timer until the credit is the environment's settlement delay old, then
 * moves what is still pending of that session to `available` in one ledger row, exactly once, whether or not the
 * sweep got there first (docs/decisions/payouts.md). Registered only so those runs finish and replay.
 */
export async function settlement(input: SettlementInput): Promise<SettlementResult> {
  // Measured by the database that stamped the credit, so a clock apart from Temporal's cannot shift it.
  const lifecycle = lifecycleState<SettlementState>();
  lifecycle('pending');
  const { waitMs } = await steps.scheduleSettlement(input);
  if (waitMs > 0) await sleep(waitMs);
  const result = await steps.settleCheckoutCredit(input);
  lifecycle('settled');
  return result;
}
