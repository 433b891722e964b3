import { z } from 'zod';
import { multiLine, singleLine } from '../../lib/text';

/**
 * What payout writes may carry: document 2's bounds (bank fields, note) and the limits it leaves open
 * (docs/decisions/payouts.md).
 */

const bankCode = singleLine({ min: 1, max: 32 }).meta({ description: 'At most 32; required while the payment module is on' });
const bankName = singleLine({ min: 1, max: 100 });
// "Not validated locally": any single line, kept as sent (spaces and dashes included) for the bank to read.
const bankAccountNumber = singleLine({ min: 1, max: 50 }).meta({ description: 'Stored encrypted; not validated locally' });
const bankAccountHolder = singleLine({ min: 1, max: 100 });
/** Bank transfer references are short; a limit of our own. */
const reference = singleLine({ min: 1, max: 255 });

/** PATCH /v1/payouts/bank-account: the account whole (the three required fields), replacing the one before. */
export const UpdateBankAccountBody = z
  .strictObject({
    bankCode: bankCode.nullable().optional(),
    bankName,
    bankAccountNumber,
    bankAccountHolder,
  })
  .meta({ id: 'UpdateBankAccountBody' });
export type UpdateBankAccountBody = z.infer<typeof UpdateBankAccountBody>;

export const CreatePayoutBody = z
  .strictObject({
    amount: z.int().min(1).max(Number.MAX_SAFE_INTEGER).meta({ description: 'Smallest currency unit; at most what is available in the currency' }),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, 'must be a 3-letter ISO 4217 code')
      .transform((v) => v.toUpperCase())
      .meta({ description: 'One of the currencies the workspace holds a balance in (GET /v1/payouts/balance)', example: 'IDR' }),
    bankCode: bankCode.nullable().optional(),
    bankName: bankName.optional(),
    bankAccountNumber: bankAccountNumber.optional(),
    bankAccountHolder: bankAccountHolder.optional(),
    note: multiLine({ max: 500 }).nullable().optional(),
  })
  .meta({
    id: 'CreatePayoutBody',
    description: 'The bank fields are a one-off override of the configured account: bankName, bankAccountNumber and bankAccountHolder together',
  });
export type CreatePayoutBody = z.infer<typeof CreatePayoutBody>;

export const MarkPayoutInTransitBody = z.strictObject({ reference: reference.optional() }).meta({ id: 'MarkPayoutInTransitBody' });
export type MarkPayoutInTransitBody = z.infer<typeof MarkPayoutInTransitBody>;

export const MarkPayoutPaidBody = z
  .strictObject({ reference: reference.optional().meta({ description: 'Replaces the in-transit reference when given' }) })
  .meta({ id: 'MarkPayoutPaidBody' });
export type MarkPayoutPaidBody = z.infer<typeof MarkPayoutPaidBody>;

export const MarkPayoutFailedBody = z.strictObject({ failureReason: multiLine({ min: 1, max: 500, trim: true }) }).meta({ id: 'MarkPayoutFailedBody' });
export type MarkPayoutFailedBody = z.infer<typeof MarkPayoutFailedBody>;
