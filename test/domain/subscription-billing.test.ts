import { periodLine } from '../../domain/subscriptions/billing';
import { dayOf, periodEnd, periodOf, prorate } from '../../domain/subscriptions/periods';
import { prorationLines } from '../../domain/subscriptions/service';

// docs/decisions/billing.md, "Subscriptions": periods, invoice lines and the proration of a plan switch, as values.
// The month-end and leap-year basics are in subscription-periods.test.ts.

const at = (iso: string) => new Date(iso);
const monthly = { interval: 'monthly' as const, intervalCount: 1 };

describe('periods beyond the basics', () => {
  it('cross a year end on the anchor day, and clamp only the month that lacks it', () => {
    const ends = [0, 1, 2].map((cycle) => periodEnd(at('2025-12-31T08:30:00Z'), monthly, cycle).toISOString());
    expect(ends).toEqual(['2026-01-31T08:30:00.000Z', '2026-02-28T08:30:00.000Z', '2026-03-31T08:30:00.000Z']);
  });

  it('keep a monthly anchor on 29 February on the 29th, and the time of day to the millisecond', () => {
    expect(periodEnd(at('2024-02-29T23:59:59.999Z'), monthly, 0).toISOString()).toBe('2024-03-29T23:59:59.999Z');
    expect(periodEnd(at('2024-02-29T00:00:00Z'), monthly, 11).toISOString()).toBe('2025-02-28T00:00:00.000Z');
    expect(periodEnd(at('2024-02-29T00:00:00Z'), monthly, 47).toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });

  it('count yearly periods of several years and weeks of several weeks from the anchor', () => {
    expect(periodEnd(at('2024-02-29T00:00:00Z'), { interval: 'yearly', intervalCount: 2 }, 0).toISOString()).toBe('2026-02-28T00:00:00.000Z');
    expect(periodEnd(at('2024-02-29T00:00:00Z'), { interval: 'yearly', intervalCount: 2 }, 1).toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(periodEnd(at('2025-01-01T00:00:00Z'), { interval: 'weekly', intervalCount: 4 }, 2).toISOString()).toBe('2025-03-26T00:00:00.000Z');
  });

  it('make the trial (cycle −1) end at the anchor, where the first paid period starts', () => {
    const anchor = at('2025-03-15T12:00:00Z');
    expect(periodOf(anchor, monthly, -1).end).toEqual(anchor);
    expect(periodOf(anchor, monthly, 0).start).toEqual(anchor);
  });

  it('name days in UTC, whatever the hour', () => {
    expect(dayOf(at('2025-01-31T23:59:59.999Z'))).toBe('2025-01-31');
    expect(dayOf(at('2025-02-01T00:00:00+07:00'))).toBe('2025-01-31');
  });
});

describe('prorate at its bounds', () => {
  it('is the whole value for the whole period and nothing for none', () => {
    expect(prorate(100_000, 31, 31)).toBe(100_000);
    expect(prorate(100_000, 0, 31)).toBe(0);
  });

  it('rounds exactly half up on an IDR amount and a USD one', () => {
    expect(prorate(150_001, 1, 2)).toBe(75_001); // 75 000.5 rupiah → 75 001
    expect(prorate(999, 1, 2)).toBe(500); // 499.5 cents → 500
    expect(prorate(999, 1, 3)).toBe(333); // 333 exactly
    expect(prorate(1_000, 1, 3)).toBe(333); // 333.33 → 333
    expect(prorate(2_000, 1, 3)).toBe(667); // 666.67 → 667
  });
});

describe('periodLine', () => {
  it('bills the plan’s price for the period, named by its UTC days', () => {
    expect(periodLine({ name: 'Basic', amount: 100_000 }, at('2025-01-31T10:00:00Z'), at('2025-02-28T10:00:00Z'))).toEqual({
      description: 'Basic (2025-01-31 to 2025-02-28)',
      quantity: 1,
      unitAmount: 100_000,
      amount: 100_000,
    });
  });
});

describe('prorationLines', () => {
  const january = { currentPeriodStart: at('2025-01-01T00:00:00Z'), currentPeriodEnd: at('2025-02-01T00:00:00Z') };
  const basic = { name: 'Basic', amount: 100_000 };
  const premium = { name: 'Premium', amount: 300_000 };

  it('credits the unused share of what the period was billed at and charges that share of the new plan (the documented example)', () => {
    // Basic 100,000 → Premium 300,000 IDR on 11 January in [1 January, 1 February): 21 of 31 days left.
    const lines = prorationLines({ ...january, currentPeriodAmount: 100_000 }, basic, premium, at('2025-01-11T00:00:00Z'));
    expect(lines).toEqual([
      { description: 'Unused time on Basic (2025-01-11 to 2025-02-01)', quantity: 1, unitAmount: -67_742, amount: -67_742 },
      { description: 'Remaining time on Premium (2025-01-11 to 2025-02-01)', quantity: 1, unitAmount: 203_226, amount: 203_226 },
    ]);
    expect(lines[0]!.amount + lines[1]!.amount).toBe(135_484);
  });

  it('credits what the period was billed at, not the old plan’s price today', () => {
    const [credit] = prorationLines({ ...january, currentPeriodAmount: 80_000 }, { name: 'Basic' }, premium, at('2025-01-11T00:00:00Z'));
    expect(credit!.amount).toBe(-54_194); // 80 000 × 21 / 31 = 54 193.5 → 54 194
  });

  it('prorates on milliseconds, not days', () => {
    const lines = prorationLines({ ...january, currentPeriodAmount: 100_000 }, basic, premium, at('2025-01-31T12:00:00Z'));
    // Half a day of 31 left: 100 000 × 0.5 / 31 = 1 612.9 → 1 613; 300 000 × 0.5 / 31 = 4 838.7 → 4 839.
    expect(lines.map((line) => line.amount)).toEqual([-1_613, 4_839]);
  });

  it('prorates nothing in a period that was not billed (trial, paused) or at or after its end', () => {
    expect(prorationLines({ ...january, currentPeriodAmount: 0 }, basic, premium, at('2025-01-11T00:00:00Z'))).toEqual([]);
    expect(prorationLines({ ...january, currentPeriodAmount: 100_000 }, basic, premium, january.currentPeriodEnd)).toEqual([]);
    expect(prorationLines({ ...january, currentPeriodAmount: 100_000 }, basic, premium, at('2025-02-02T00:00:00Z'))).toEqual([]);
  });

  it('credits and charges the whole price at the period’s very start', () => {
    const lines = prorationLines({ ...january, currentPeriodAmount: 100_000 }, basic, premium, january.currentPeriodStart);
    expect(lines.map((line) => line.amount)).toEqual([-100_000, 300_000]);
  });
});
