import { PAYOUT_STATUSES } from '../../db/models/payout';
import { isFinalPayoutState, payoutProgress } from '../../domain/payouts/states';

// The order the payout workflow follows signals in (workflows/payout.ts): the moves' table read as progress.

const FINALS = ['paid', 'failed', 'cancelled'] as const;

describe('payout state order', () => {
  it('runs pending, then in_transit, then a final status; the final ones are paid, failed and cancelled', () => {
    expect(PAYOUT_STATUSES.filter(isFinalPayoutState)).toEqual(FINALS);
    expect(payoutProgress('pending')).toBeLessThan(payoutProgress('in_transit'));
    for (const final of FINALS) {
      expect(payoutProgress('in_transit')).toBeLessThan(payoutProgress(final));
      expect(payoutProgress('pending')).toBeLessThan(payoutProgress(final));
    }
  });

  it('puts no final status ahead of another: the first one told is the one kept', () => {
    expect(new Set(FINALS.map(payoutProgress)).size).toBe(1);
  });
});
