import { periodEnd, periodOf, prorate } from '../../domain/subscriptions/periods';

const at = (iso: string) => new Date(iso);
const ends = (anchor: string, plan: Parameters<typeof periodEnd>[1], cycles: number) =>
  Array.from({ length: cycles }, (_, cycle) => periodEnd(at(anchor), plan, cycle).toISOString());

describe('subscription periods', () => {
  it('counts monthly periods from the anchor, so the 31st comes back after shorter months', () => {
    expect(ends('2025-01-31T10:00:00Z', { interval: 'monthly', intervalCount: 1 }, 4)).toEqual([
      '2025-02-28T10:00:00.000Z',
      '2025-03-31T10:00:00.000Z',
      '2025-04-30T10:00:00.000Z',
      '2025-05-31T10:00:00.000Z',
    ]);
    expect(ends('2024-01-31T00:00:00Z', { interval: 'monthly', intervalCount: 1 }, 1)).toEqual(['2024-02-29T00:00:00.000Z']);
    expect(ends('2025-11-30T00:00:00Z', { interval: 'monthly', intervalCount: 3 }, 2)).toEqual(['2026-02-28T00:00:00.000Z', '2026-05-30T00:00:00.000Z']);
  });

  it('keeps 29 February in leap years and takes the 28th in others; weeks and days are UTC days', () => {
    expect(ends('2024-02-29T00:00:00Z', { interval: 'yearly', intervalCount: 1 }, 4)).toEqual([
      '2025-02-28T00:00:00.000Z',
      '2026-02-28T00:00:00.000Z',
      '2027-02-28T00:00:00.000Z',
      '2028-02-29T00:00:00.000Z',
    ]);
    expect(ends('2025-03-29T12:00:00Z', { interval: 'weekly', intervalCount: 2 }, 2)).toEqual(['2025-04-12T12:00:00.000Z', '2025-04-26T12:00:00.000Z']);
    expect(ends('2025-12-31T23:00:00Z', { interval: 'daily', intervalCount: 1 }, 2)).toEqual(['2026-01-01T23:00:00.000Z', '2026-01-02T23:00:00.000Z']);
  });

  it('makes each period start where the previous ended', () => {
    const plan = { interval: 'monthly' as const, intervalCount: 1 };
    for (let cycle = 1; cycle < 24; cycle += 1) {
      expect(periodOf(at('2025-01-31T00:00:00Z'), plan, cycle).start).toEqual(periodOf(at('2025-01-31T00:00:00Z'), plan, cycle - 1).end);
    }
    expect(periodOf(at('2025-01-31T00:00:00Z'), plan, 0)).toEqual({ start: at('2025-01-31T00:00:00Z'), end: at('2025-02-28T00:00:00Z') });
  });

  it('prorates exactly, rounding half up', () => {
    expect(prorate(100_000, 21, 31)).toBe(67_742);
    expect(prorate(300_000, 21, 31)).toBe(203_226);
    expect(prorate(1, 1, 2)).toBe(1);
    expect(prorate(3, 1, 2)).toBe(2);
    expect(prorate(5, 1, 3)).toBe(2);
    expect(prorate(4, 1, 3)).toBe(1);
    // Amounts and periods far past 2^53 when multiplied stay exact.
    expect(prorate(1_000_000_000_000, 2_678_399_999, 2_678_400_000)).toBe(999_999_999_627);
  });
});
