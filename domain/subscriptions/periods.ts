import type { BillingInterval } from '../../db/models';

const DAY_MS = 86_400_000;

/** `date` plus `months` calendar months in UTC, the day clamped to the target month's last (31 Jan + 1 → 28/29 Feb). */
function addMonths(date: Date, months: number): Date {
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(year, month, Math.min(date.getUTCDate(), lastDay), date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds()),
  );
}

export interface PlanInterval {
  interval: BillingInterval;
  intervalCount: number;
}

/**
 * The end of period `cycle` (0 is the first paid period) of a subscription anchored at `anchor`: always counted
 * from the anchor, never from the previous end, so a monthly subscription anchored on the 31st bills on the
 * 30th in April and on the 31st again in May (docs/decisions/billing.md, "Subscriptions").
 */
export function periodEnd(anchor: Date, plan: PlanInterval, cycle: number): Date {
  const n = (cycle + 1) * plan.intervalCount;
  switch (plan.interval) {
    case 'daily':
      return new Date(anchor.getTime() + n * DAY_MS);
    case 'weekly':
      return new Date(anchor.getTime() + n * 7 * DAY_MS);
    case 'monthly':
      return addMonths(anchor, n);
    case 'yearly':
      return addMonths(anchor, 12 * n);
  }
}

/** Period `cycle` as [start, end); cycle -1 (the trial) ends at the anchor. */
export function periodOf(anchor: Date, plan: PlanInterval, cycle: number): { start: Date; end: Date } {
  return { start: cycle === 0 ? anchor : periodEnd(anchor, plan, cycle - 1), end: periodEnd(anchor, plan, cycle) };
}

/** `value × part ÷ whole`, rounded half up, exact for any amounts and periods (BigInt). */
export function prorate(value: number, part: number, whole: number): number {
  const scaled = BigInt(value) * BigInt(part) * 2n + BigInt(whole);
  return Number(scaled / (2n * BigInt(whole)));
}

/** A UTC calendar date for invoice lines: 2025-01-31. */
export const dayOf = (date: Date) => date.toISOString().slice(0, 10);
