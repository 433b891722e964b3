import { z } from 'zod';
import { PAYOUT_STATUSES } from '../../../db/models';
import { pageQuery } from '../../pagination';
import { pathId, Timestamp } from '../../openapi';

export { CreatePayoutBody, MarkPayoutFailedBody, MarkPayoutInTransitBody, MarkPayoutPaidBody, UpdateBankAccountBody } from '../../../domain/payouts';

export const ListPayoutsQuery = pageQuery().extend({ status: z.enum(PAYOUT_STATUSES).optional() });
export type ListPayoutsQuery = z.infer<typeof ListPayoutsQuery>;

export const PayoutIdParams = z.object({ id: pathId });

export const Balance = z
  .object({
    accountId: z.string(),
    currency: z.string().meta({ description: 'ISO 4217' }),
    available: z.int().meta({ description: 'Settled and withdrawable, smallest unit; negative only after refunds of settled sales' }),
    pending: z.int().meta({ description: 'In settlement (SETTLEMENT_DELAY after each completed sale), smallest unit' }),
  })
  .meta({ id: 'Balance', description: 'One per currency the workspace has sold in' });

export const BankAccount = z
  .object({
    accountId: z.string(),
    bankCode: z.string().nullable(),
    bankName: z.string(),
    bankAccountNumber: z.string(),
    bankAccountHolder: z.string(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'BankAccount' });

export const Payout = z
  .object({
    id: z.string().meta({ example: 'pout_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    amount: z.int().meta({ description: 'Smallest currency unit' }),
    currency: z.string(),
    status: z.enum(PAYOUT_STATUSES),
    bankCode: z.string().nullable(),
    bankName: z.string().meta({ description: 'Snapshot at request time, like the other bank fields' }),
    bankAccountNumber: z.string(),
    bankAccountHolder: z.string(),
    reference: z.string().nullable().meta({ description: 'Set by mark-in-transit or mark-paid' }),
    failureReason: z.string().nullable(),
    note: z.string().nullable(),
    requestedAt: Timestamp,
    inTransitAt: Timestamp.nullable(),
    paidAt: Timestamp.nullable(),
    failedAt: Timestamp.nullable(),
    cancelledAt: Timestamp.nullable(),
  })
  .meta({ id: 'Payout' });
