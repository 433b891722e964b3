import type { Sequelize } from 'sequelize';
import type { Tenant } from './tenancy';
import { plainQuery } from './plain-query';

/** One day's completed checkouts in one currency (the day as `YYYY-MM-DD`, UTC). */
export interface DailySalesRow {
  day: string;
  currency: string;
  total: number;
  count: number;
}

const DAILY_SALES_SQL = `SELECT to_char(completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, currency,
                sum(amount)::float8 AS total, count(*)::int AS count
           FROM checkout_sessions
          WHERE account_id = $1 AND environment = $2 AND status = 'completed' AND completed_at >= $3
          GROUP BY 1, 2
          ORDER BY 1, 2`;

/** Completed checkouts of the tenant since `since`, summed per UTC day and currency (the dashboard's sales chart). */
export function readDailySales(sequelize: Sequelize, tenant: Tenant, since: Date): Promise<DailySalesRow[]> {
  return plainQuery<DailySalesRow>(sequelize, DAILY_SALES_SQL, [tenant.accountId, tenant.environment, since]);
}
