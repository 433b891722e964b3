import { proxyActivities } from '@temporalio/workflow';
import type { SettlementSweepActivities } from '../activities/contracts/payouts';
import type { SettlementSweepResult } from './messages';

/**
 * The heartbeat (after each credit) finds a killed worker in seconds, so the schedule's next sweep is not skipped
 * for long behind a run that is gone; a sweep left short by its retries is the next interval's to finish.
 */
const { settleDueCredits } = proxyActivities<SettlementSweepActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

/**
 * Run by the `settlement-sweep` schedule every SETTLEMENT_SWEEP_INTERVAL, one at a time: moves every checkout credit
 * that is its environment's settlement delay old from pending to available, each once (docs/decisions/payouts.md).
 */
export async function settlementSweep(): Promise<SettlementSweepResult> {
  return settleDueCredits();
}
