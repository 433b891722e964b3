import type { PayoutWorkflowStatus as PayoutState } from '../../workflows/messages';

/**
 * A payout's state machine (document 2, States: Payout) as data, importing nothing that runs: the moves
 * (transitions.ts) and the payout workflow, whose bundle must stay deterministic, both read it here.
 */

/** The only moves, by the status each starts from: `pending` → `in_transit` → `paid` or `failed`, and `pending` → `cancelled`. */
export const PAYOUT_MOVE_FROM = {
  in_transit: 'pending',
  paid: 'in_transit',
  failed: 'in_transit',
  cancelled: 'pending',
} as const satisfies Record<Exclude<PayoutState, 'pending'>, PayoutState>;

/** A status no move leaves. */
export const isFinalPayoutState = (status: PayoutState): boolean => !Object.values<PayoutState>(PAYOUT_MOVE_FROM).includes(status);

/** How far along a status is: the moves it took from `pending`, every final status furthest. A move only goes forward in it. */
export function payoutProgress(status: PayoutState): number {
  if (isFinalPayoutState(status)) return Infinity;
  return status === 'pending' ? 0 : 1 + payoutProgress(PAYOUT_MOVE_FROM[status]);
}

/**
 * A payout workflow's `LifecycleState`: the payout's status as the workflow last followed it (`pending`,
 * `in_transit`, then `paid`, `failed` or `cancelled`, document 2's spelling).
 */
export type PayoutLifecycleState = PayoutState;

/** A settlement's `LifecycleState`: `pending` until the settlement delay has passed, then `settled`. */
export const SETTLEMENT_STATES = ['pending', 'settled'] as const;

export type SettlementState = (typeof SETTLEMENT_STATES)[number];
