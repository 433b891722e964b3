import { condition, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { PayoutActivities } from '../activities/contracts/payouts';
import { isFinalPayoutState, payoutProgress, type PayoutLifecycleState } from '../domain/payouts/states';
import { lifecycleState } from './lifecycle';
import { payoutMoved, payoutStateQuery, type PayoutOutcome, type PayoutWorkflowInput, type PayoutWorkflowState, type PayoutWorkflowStatus } from './messages';

/**
 * Submitting the disbursement: a provider that does not answer is asked again, with the payout id as the
 * idempotency key, so a retry never pays out twice; a provider's refusal is an outcome (the payout fails), not a retry.
 */
const provider = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

/**
 * `payout:<pout>`: one per payout, from its creation to a final status. The row is the truth: each move commits
 * there, under the row's lock and with its ledger rows, and records in the same transaction the signal that tells
 * this workflow (a durable signal-with-start), so the two never disagree for longer than a delivery takes. Signals
 * may arrive late, twice or out of order (a relay re-sending after a crash); only a move forward counts.
 *
 * Manual backend: the merchant's mark and cancel routes make the moves. Provider backend (payment module): the
 * first step submits the disbursement at the provider (the payout goes `in_transit`, or `failed` when the provider
 * refuses it), and the provider's callbacks make the moves after that, through the same path as the mark routes.
 * That step is behind `patched`, so histories recorded before it replay unchanged.
 */
export async function payout(input: PayoutWorkflowInput): Promise<PayoutOutcome> {
  const lifecycle = lifecycleState<PayoutLifecycleState>();
  const state: PayoutWorkflowState = { status: 'pending' };
  lifecycle(state.status);
  const follow = (status: PayoutWorkflowStatus) => {
    // Only forward in the state machine's order, so a late or repeated signal changes nothing.
    if (payoutProgress(status) > payoutProgress(state.status)) {
      state.status = status;
      lifecycle(status);
    }
  };
  setHandler(payoutStateQuery, () => state);
  setHandler(payoutMoved, ({ status }) => follow(status));
  if (input.backend === 'provider' && patched('payout-provider-disbursement')) {
    follow((await provider.submitPayoutDisbursement(input)).status);
  }
  await condition(() => isFinalPayoutState(state.status));
  return state.status as PayoutOutcome;
}
