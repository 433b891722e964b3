import { QueryTypes, type Transaction } from 'sequelize';
import type { BalanceTransactionType } from './models';
import { connectionOf } from './outbox';
import type { Statement } from './pagination';
import type { Tenant } from './tenancy';

export interface LedgerEntry {
  id: string;
  type: BalanceTransactionType;
  /** What caused it (a session, refund or payout id); (type, sourceId) is unique. */
  sourceId: string;
  checkoutSessionId?: string | null;
  currency: string;
  pendingDelta: number;
  availableDelta: number;
}

export interface BalanceRow {
  currency: string;
  pending: number;
  available: number;
}

/**
 * Appends one ledger row and moves the balance summary by the same amounts, in the caller's transaction.
 * The summary row is locked by the upsert itself, so concurrent writers of one currency queue up. Returns false
 * (and changes nothing) when the row for (type, sourceId) already exists: a retried step credits once.
 */
export async function appendLedgerEntry(tx: Transaction, tenant: Tenant, entry: LedgerEntry): Promise<boolean> {
  const sequelize = connectionOf(tx);
  const inserted = await sequelize.query<{ id: string }>(
    `INSERT INTO balance_transactions (id, account_id, environment, type, source_id, checkout_session_id, currency, pending_delta, available_delta)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (type, source_id) DO NOTHING
     RETURNING id`,
    {
      bind: [entry.id, tenant.accountId, tenant.environment, entry.type, entry.sourceId, entry.checkoutSessionId ?? null, entry.currency, entry.pendingDelta, entry.availableDelta],
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  if (inserted.length === 0) return false;
  await sequelize.query(
    `INSERT INTO balances (account_id, environment, currency, pending, available) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account_id, environment, currency)
     DO UPDATE SET pending = balances.pending + EXCLUDED.pending, available = balances.available + EXCLUDED.available, updated_at = now()`,
    { bind: [tenant.accountId, tenant.environment, entry.currency, entry.pendingDelta, entry.availableDelta], type: QueryTypes.INSERT, transaction: tx },
  );
  return true;
}

/** The balance per currency, locked FOR UPDATE when `lock` (a payout checking `available` before it reserves). */
export async function readBalances(tx: Transaction, tenant: Tenant, { lock = false }: { lock?: boolean } = {}): Promise<BalanceRow[]> {
  const rows = await connectionOf(tx).query<{ currency: string; pending: string; available: string }>(
    `SELECT currency, pending, available FROM balances WHERE account_id = $1 AND environment = $2 ORDER BY currency${lock ? ' FOR UPDATE' : ''}`,
    { bind: [tenant.accountId, tenant.environment], type: QueryTypes.SELECT, transaction: tx },
  );
  return rows.map((row) => ({ currency: row.currency, pending: Number(row.pending), available: Number(row.available) }));
}

/** What is still pending of one session's credit (its credit less what settlement and refunds took). */
export async function pendingOfSession(tx: Transaction, checkoutSessionId: string): Promise<number> {
  const [row] = await connectionOf(tx).query<{ pending: string | null }>(
    'SELECT sum(pending_delta) AS pending FROM balance_transactions WHERE checkout_session_id = $1',
    { bind: [checkoutSessionId], type: QueryTypes.SELECT, transaction: tx },
  );
  return Number(row?.pending ?? 0);
}

/**
 * debitAvailable's statement; exported so the bench's ceiling sends the very same one. The balance row's UPDATE
 * checks and debits in one step under its row lock, and the ledger row is inserted only when it did.
 */
export function debitAvailableStatement(tenant: Tenant, entry: { id: string; type: BalanceTransactionType; sourceId: string; currency: string; amount: number }): Statement {
  return {
    text: `WITH debit AS (
       UPDATE balances SET available = available - $6::bigint, updated_at = now()
        WHERE account_id = $2 AND environment = $3 AND currency = $5 AND available >= $6::bigint
       RETURNING currency)
     INSERT INTO balance_transactions (id, account_id, environment, type, source_id, currency, pending_delta, available_delta)
     SELECT $1, $2, $3, $4, $7, currency, 0, -$6::bigint FROM debit
     RETURNING id`,
    values: [entry.id, tenant.accountId, tenant.environment, entry.type, entry.currency, entry.amount, entry.sourceId],
  };
}

/**
 * Takes `amount` out of `available` as one ledger row, only if that much is there, in the caller's transaction:
 * concurrent debits of one currency queue on the balance row, so the sum of those that succeed never exceeds what
 * was available (a payout never takes the balance below zero). False, with nothing written, when it cannot cover
 * the amount or the workspace has no balance in that currency.
 */
export async function debitAvailable(tx: Transaction, tenant: Tenant, entry: { id: string; type: BalanceTransactionType; sourceId: string; currency: string; amount: number }): Promise<boolean> {
  const { text, values } = debitAvailableStatement(tenant, entry);
  const rows = await connectionOf(tx).query<{ id: string }>(text, { bind: values, type: QueryTypes.SELECT, transaction: tx });
  return rows.length > 0;
}
