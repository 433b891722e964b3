import { QueryTypes, type Transaction } from 'sequelize';
import { connectionOf } from './outbox';
import type { Tenant } from './tenancy';

/**
 * The next number of a gap-free series (per workspace, environment and series), inside the caller's transaction:
 * the upsert locks the counter row until that transaction ends, so concurrent writers queue and a rollback
 * hands the number back. Hold it only for the one insert that uses the number.
 */
export async function nextInSeries(tx: Transaction, tenant: Tenant, series: string): Promise<number> {
  const [row] = await connectionOf(tx).query<{ value: string }>(
    `INSERT INTO number_sequences (account_id, environment, series, last_value) VALUES ($1, $2, $3, 1)
     ON CONFLICT (account_id, environment, series) DO UPDATE SET last_value = number_sequences.last_value + 1
     RETURNING last_value AS value`,
    { bind: [tenant.accountId, tenant.environment, series], type: QueryTypes.SELECT, transaction: tx },
  );
  return Number(row!.value);
}
