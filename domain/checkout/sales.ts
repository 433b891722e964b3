import type { Sequelize } from 'sequelize';
import { readDailySales } from '../../db/sales';
import type { Tenant } from '../../db/tenancy';

const DAY_MS = 86_400_000;

export interface DailySales {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  total: number;
  count: number;
}

/** One currency's completed checkouts over the window, every day present (zero when nothing sold). */
export interface SalesSeries {
  currency: string;
  days: DailySales[];
  total: number;
  count: number;
}

/**
 * Sales of the last `days` UTC days, today included: completed checkout sessions by the day they completed, gross
 * (refunds are the refunds list's), one series per currency sold in, the busiest first.
 */
export async function salesByDay(sequelize: Sequelize, tenant: Tenant, now: Date, days: number): Promise<SalesSeries[]> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const first = today - (days - 1) * DAY_MS;
  const calendar = Array.from({ length: days }, (_, i) => new Date(first + i * DAY_MS).toISOString().slice(0, 10));
  const rows = await readDailySales(sequelize, tenant, new Date(first));
  const currencies = [...new Set(rows.map((row) => row.currency))];
  return currencies
    .map((currency) => {
      const byDay = new Map(rows.filter((row) => row.currency === currency).map((row) => [row.day, row]));
      const series = calendar.map((day) => ({ day, total: Number(byDay.get(day)?.total ?? 0), count: byDay.get(day)?.count ?? 0 }));
      return { currency, days: series, total: series.reduce((sum, d) => sum + d.total, 0), count: series.reduce((sum, d) => sum + d.count, 0) };
    })
    .sort((a, b) => b.count - a.count || a.currency.localeCompare(b.currency));
}
