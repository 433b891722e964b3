import { PAYOUT_STATUSES } from '../../db/models/payout';
import { canMovePayout, type PayoutMove } from '../../domain/payouts/transitions';

// Document 2, States: Payout, and docs/decisions/payouts.md, "Moves and the workflow": the table, without a payout row.

const moves: PayoutMove[] = [{ to: 'in_transit' }, { to: 'paid' }, { to: 'failed', failureReason: 'bank refused' }, { to: 'cancelled' }];

describe('payout moves', () => {
  it('are pending → in_transit → paid or failed, and pending → cancelled; every other move is refused', () => {
    const allowed = PAYOUT_STATUSES.flatMap((status) => moves.filter((move) => canMovePayout({ status }, move)).map((move) => `${status}→${move.to}`));
    expect(allowed).toEqual(['pending→in_transit', 'pending→cancelled', 'in_transit→paid', 'in_transit→failed']);
  });

  it('refuse pending → paid or failed directly (the money must be marked in transit first)', () => {
    expect(canMovePayout({ status: 'pending' }, { to: 'paid' })).toBe(false);
    expect(canMovePayout({ status: 'pending' }, { to: 'failed', failureReason: 'never sent' })).toBe(false);
  });

  it('leave the final statuses final, and a payout in transit no longer cancellable', () => {
    for (const status of ['paid', 'failed', 'cancelled'] as const) {
      expect(moves.some((move) => canMovePayout({ status }, move))).toBe(false);
    }
    expect(canMovePayout({ status: 'in_transit' }, { to: 'cancelled' })).toBe(false);
  });
});
