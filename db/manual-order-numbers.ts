import { QueryTypes, type Transaction } from 'sequelize';
import { connectionOf } from './outbox';
import type { Tenant } from './tenancy';

/**
 * The next order sequence number of a workspace environment, taken in the order's own transaction: the upsert
 * creates the counter row at 1 or adds one to it, holding the row's lock until the transaction ends. A second
 * order waits for the first to commit or roll back, so numbers are never shared, and a rolled-back order's
 * number is handed to the next one: the sequence has no gaps.
 */
export async function nextManualOrderSeq(tx: Transaction, tenant: Tenant): Promise<number> {
  const [row] = await connectionOf(tx).query<{ seq: string }>(
    `INSERT INTO manual_order_numbers (account_id, environment, last_seq) VALUES (:accountId, :environment, 1)
     ON CONFLICT (account_id, environment) DO UPDATE SET last_seq = manual_order_numbers.last_seq + 1
     RETURNING last_seq AS seq`,
    { type: QueryTypes.SELECT, replacements: { accountId: tenant.accountId, environment: tenant.environment }, transaction: tx },
  );
  return Number(row!.seq);
}
