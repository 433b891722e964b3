import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Environment } from './models';
import { connectionOf } from './outbox';
import type { Tenant } from './tenancy';

/** The reads of a checkout credit's settlement; the rules live in domain/payouts/settlement.ts. */

/**
 * When the session's `checkout_credit` is `delayMs` old, and how long that is from now (rounded up, never below 0),
 * both by the database's clock; undefined when the session has no credit.
 */
export async function checkoutCreditDue(
  sequelize: Sequelize,
  tenant: Tenant,
  sessionId: string,
  delayMs: number,
): Promise<{ dueAt: Date; waitMs: number } | undefined> {
  const [credit] = await sequelize.query<{ dueAt: Date; waitMs: number }>(
    `SELECT created_at + make_interval(secs => $4::float8 / 1000) AS "dueAt",
            greatest(0, ceil(extract(epoch FROM created_at + make_interval(secs => $4::float8 / 1000) - now()) * 1000))::float8 AS "waitMs"
       FROM balance_transactions
      WHERE checkout_session_id = $1 AND type = 'checkout_credit' AND account_id = $2 AND environment = $3`,
    { bind: [sessionId, tenant.accountId, tenant.environment, delayMs], type: QueryTypes.SELECT },
  );
  return credit;
}

/** The session's currency under its row lock (FOR UPDATE), the lock refunds take too; undefined when the tenant has no such session. */
export async function lockSessionCurrency(sequelize: Sequelize, tx: Transaction, tenant: Tenant, sessionId: string): Promise<string | undefined> {
  const [session] = await sequelize.query<{ currency: string }>(
    'SELECT currency FROM checkout_sessions WHERE id = $1 AND account_id = $2 AND environment = $3 FOR UPDATE',
    { bind: [sessionId, tenant.accountId, tenant.environment], type: QueryTypes.SELECT, transaction: tx },
  );
  return session?.currency;
}

/** What the session's `settlement` ledger row moved to available; undefined when it is not settled. */
export async function settledAmountOf(sequelize: Sequelize, tx: Transaction, sessionId: string): Promise<number | undefined> {
  const [done] = await sequelize.query<{ availableDelta: string }>(
    `SELECT available_delta AS "availableDelta" FROM balance_transactions WHERE type = 'settlement' AND source_id = $1`,
    { bind: [sessionId], type: QueryTypes.SELECT, transaction: tx },
  );
  return done ? Number(done.availableDelta) : undefined;
}

/**
 * Marks the session's credit as due to settle (`settlement_dues`), with the credit's own ledger time. Call it in the
 * transaction that wrote the credit, so the mark exists exactly when the credit does.
 */
export async function recordSettlementDue(tx: Transaction, sessionId: string): Promise<void> {
  await connectionOf(tx).query(
    `INSERT INTO settlement_dues (checkout_session_id, account_id, environment, credited_at)
     SELECT checkout_session_id, account_id, environment, created_at FROM balance_transactions WHERE type = 'checkout_credit' AND source_id = $1
     ON CONFLICT (checkout_session_id) DO NOTHING`,
    { bind: [sessionId], type: QueryTypes.INSERT, transaction: tx },
  );
}

/** Clears the session's due mark, in the transaction that settles it (or finds nothing left to settle). */
export async function clearSettlementDue(sequelize: Sequelize, tx: Transaction, sessionId: string): Promise<void> {
  await sequelize.query('DELETE FROM settlement_dues WHERE checkout_session_id = $1', { bind: [sessionId], type: QueryTypes.DELETE, transaction: tx });
}

export interface DueSettlement {
  accountId: string;
  environment: Environment;
  sessionId: string;
}

/**
 * Up to `limit` credits still marked due whose credit time plus their environment's delay has passed by the
 * database's clock, earliest due first. One index range per environment (settlement_dues_due), so the read costs
 * what is due, never the ledger's history.
 */
export function dueSettlements(sequelize: Sequelize, delayMs: Record<Environment, number>, limit: number): Promise<DueSettlement[]> {
  const due = (environment: Environment, delay: string) => `
    (SELECT checkout_session_id, account_id, environment, credited_at + make_interval(secs => ${delay}::float8 / 1000) AS due_at
       FROM settlement_dues
      WHERE environment = '${environment}' AND credited_at <= now() - make_interval(secs => ${delay}::float8 / 1000)
      ORDER BY credited_at
      LIMIT $3)`;
  return sequelize.query<DueSettlement>(
    `SELECT checkout_session_id AS "sessionId", account_id AS "accountId", environment
       FROM (${due('test', '$1')} UNION ALL ${due('live', '$2')}) due
      ORDER BY due_at
      LIMIT $3`,
    { bind: [delayMs.test, delayMs.live, limit], type: QueryTypes.SELECT },
  );
}
