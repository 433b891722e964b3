import type { BankAccountRow, PayoutRow } from '../../db/payouts';
import type { BalanceRow } from '../../db/ledger';
import type { CryptoBox } from '../../lib/crypto-box';

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** The one payout shape of every route (document 2's Payout); the bank fields are the snapshot taken at request time. */
export function toPayoutDto(row: PayoutRow, box: CryptoBox) {
  return {
    id: row.id,
    accountId: row.accountId,
    amount: Number(row.amount),
    currency: row.currency,
    status: row.status,
    bankCode: row.bankCode,
    bankName: row.bankName,
    bankAccountNumber: box.open(row.bankAccountNumberSealed),
    bankAccountHolder: row.bankAccountHolder,
    reference: row.reference,
    failureReason: row.failureReason,
    note: row.note,
    requestedAt: iso(row.createdAt)!,
    inTransitAt: iso(row.inTransitAt),
    paidAt: iso(row.paidAt),
    failedAt: iso(row.failedAt),
    cancelledAt: iso(row.cancelledAt),
  };
}

export type PayoutDto = ReturnType<typeof toPayoutDto>;

/** The configured bank account: the PATCH fields, and when it was first set and last replaced. */
export function toBankAccountDto(row: BankAccountRow, box: CryptoBox) {
  return {
    accountId: row.accountId,
    bankCode: row.bankCode,
    bankName: row.bankName,
    bankAccountNumber: box.open(row.bankAccountNumberSealed),
    bankAccountHolder: row.bankAccountHolder,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}

export type BankAccountDto = ReturnType<typeof toBankAccountDto>;

/** Document 2's balance object, one per currency. */
export function toBalanceDto(accountId: string, row: BalanceRow) {
  return { accountId, currency: row.currency, available: row.available, pending: row.pending };
}

export type BalanceDto = ReturnType<typeof toBalanceDto>;
