import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
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
