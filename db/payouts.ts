import { QueryTypes, type Attributes, type Sequelize, type Transaction } from 'sequelize';
import { selectColumns } from './columns';
import { Payout, PayoutBankAccount } from './models';
import { connectionOf } from './outbox';
import type { Statement } from './pagination';
import type { Tenant } from './tenancy';

/**
 * Payout reads and writes as plain statements: the create runs them on every request, under contention on one
 * balance row (docs/benchmark-method.md), and the bench's ceiling sends the very same ones.
 */

/** A payout row from the model or from a raw read (where bigint `amount` arrives as a string). */
export type PayoutRow = Omit<Attributes<Payout>, 'amount'> & { amount: number | string };

export type BankAccountRow = Attributes<PayoutBankAccount>;

/** What a payout create needs to know before it writes: the currency's balance (null: none) and the bank account. */
export interface PayoutCreateContext {
  available: number | null;
  bankAccount: Pick<BankAccountRow, 'bankCode' | 'bankName' | 'bankAccountNumberSealed' | 'bankAccountHolder'> | null;
}

/** readPayoutCreateContext's statement: one round trip for both reads. */
export function payoutCreateContextStatement(tenant: Tenant, currency: string): Statement {
  return {
    text: `SELECT b.available, a.bank_code AS "bankCode", a.bank_name AS "bankName",
              a.bank_account_number_sealed AS "bankAccountNumberSealed", a.bank_account_holder AS "bankAccountHolder"
         FROM (SELECT 1) AS one
         LEFT JOIN balances b ON b.account_id = $1 AND b.environment = $2 AND b.currency = $3
         LEFT JOIN payout_bank_accounts a ON a.account_id = $1 AND a.environment = $2`,
    values: [tenant.accountId, tenant.environment, currency],
  };
}

type ContextRow = { available: string | null; bankCode: string | null; bankName: string | null; bankAccountNumberSealed: string | null; bankAccountHolder: string | null };

export function toPayoutCreateContext(row: ContextRow): PayoutCreateContext {
  return {
    available: row.available === null ? null : Number(row.available),
    bankAccount:
      row.bankName === null || row.bankAccountNumberSealed === null || row.bankAccountHolder === null
        ? null
        : { bankCode: row.bankCode, bankName: row.bankName, bankAccountNumberSealed: row.bankAccountNumberSealed, bankAccountHolder: row.bankAccountHolder },
  };
}

/** Unlocked: the create checks again, atomically, when it debits (db/ledger.ts debitAvailable). */
export async function readPayoutCreateContext(sequelize: Sequelize, tenant: Tenant, currency: string): Promise<PayoutCreateContext> {
  const { text, values } = payoutCreateContextStatement(tenant, currency);
  const [row] = await sequelize.query<ContextRow>(text, { bind: values, type: QueryTypes.SELECT });
  return toPayoutCreateContext(row!);
}

export type NewPayoutRow = Pick<PayoutRow, 'id' | 'accountId' | 'environment' | 'backend' | 'amount' | 'currency' | 'bankCode' | 'bankName' | 'bankAccountNumberSealed' | 'bankAccountHolder' | 'note'>;

/** insertPayout's statement; exported so the bench's ceiling sends the very same one. */
export function payoutInsertStatement(row: NewPayoutRow): Statement {
  return {
    text: `INSERT INTO payouts (id, account_id, environment, backend, amount, currency, bank_code, bank_name, bank_account_number_sealed, bank_account_holder, note)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     RETURNING ${selectColumns(Payout)}`,
    values: [row.id, row.accountId, row.environment, row.backend, row.amount, row.currency, row.bankCode, row.bankName, row.bankAccountNumberSealed, row.bankAccountHolder, row.note],
  };
}

export async function insertPayout(tx: Transaction, row: NewPayoutRow): Promise<PayoutRow> {
  const { text, values } = payoutInsertStatement(row);
  const [inserted] = await connectionOf(tx).query<PayoutRow>(text, { bind: values, type: QueryTypes.SELECT, transaction: tx });
  return inserted!;
}

/** The currencies the tenant holds a balance in, for the message of a payout in any other. */
export async function balanceCurrencies(sequelize: Sequelize, tenant: Tenant): Promise<string[]> {
  const rows = await sequelize.query<{ currency: string }>('SELECT currency FROM balances WHERE account_id = $1 AND environment = $2 ORDER BY currency', {
    bind: [tenant.accountId, tenant.environment],
    type: QueryTypes.SELECT,
  });
  return rows.map((r) => r.currency);
}

/** Replaces the tenant's bank account whole (a PATCH carries every required field), keeping when it was first set. */
export async function upsertBankAccount(
  sequelize: Sequelize,
  tenant: Tenant,
  account: Pick<BankAccountRow, 'bankCode' | 'bankName' | 'bankAccountNumberSealed' | 'bankAccountHolder'>,
): Promise<BankAccountRow> {
  const [row] = await sequelize.query<BankAccountRow>(
    `INSERT INTO payout_bank_accounts (account_id, environment, bank_code, bank_name, bank_account_number_sealed, bank_account_holder)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (account_id, environment) DO UPDATE
       SET bank_code = EXCLUDED.bank_code, bank_name = EXCLUDED.bank_name, bank_account_number_sealed = EXCLUDED.bank_account_number_sealed,
           bank_account_holder = EXCLUDED.bank_account_holder, updated_at = now()
     RETURNING ${selectColumns(PayoutBankAccount)}`,
    {
      bind: [tenant.accountId, tenant.environment, account.bankCode, account.bankName, account.bankAccountNumberSealed, account.bankAccountHolder],
      type: QueryTypes.SELECT,
    },
  );
  return row!;
}
