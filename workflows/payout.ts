import { condition, setHandler } from '@temporalio/workflow';
import { payoutMoved, payoutStateQuery, type PayoutOutcome, type PayoutWorkflowInput, type PayoutWorkflowState, type PayoutWorkflowStatus } from './messages';

/** How far along a status is: a move is taken only forward, so a late or repeated signal changes nothing. */
const PROGRESS: Record<PayoutWorkflowStatus, number> = { pending: 0, in_transit: 1, paid: 2, failed: 2, cancelled: 2 };
const FINAL = 2;

/**
 * `payout:<pout>`: one per payout, from its creation to a final status. The row is the truth: each move commits
 * there, under the row's lock and with its ledger rows, and records in the same transaction the signal that tells
 * this workflow (a durable signal-with-start), so the two never disagree for longer than a delivery takes. Signals
 * may arrive late, twice or out of order (a relay re-sending after a crash); only a move forward counts.
 *
 * Manual backend: the merchant's mark and cancel routes make the moves. The provider backend (payment module) is
 * the seam here: it will submit the disbursement as this workflow's first step and feed the provider's callbacks
 * through the same moves.
 */
export async function payout(_input: PayoutWorkflowInput): Promise<PayoutOutcome> {
  const state: PayoutWorkflowState = { status: 'pending' };
  setHandler(payoutStateQuery, () => state);
  setHandler(payoutMoved, ({ status }) => {
    if (PROGRESS[status] > PROGRESS[state.status]) state.status = status;
  });
  await condition(() => PROGRESS[state.status] === FINAL);
  return state.status as PayoutOutcome;
}
