import { z } from 'zod';
import { patchBody } from '../../lib/patch-body';
import { BILLING_INTERVALS } from '../../db/models';
import { multiLine, singleLine, stringMap } from '../../lib/text';

const metadata = stringMap({ keyMax: 40, maxKeys: 50, value: singleLine({ max: 500, trim: false }) }).meta({
  description: 'String-to-string map, at most 50 entries; replaced whole on update',
});
/** Smallest currency unit; the upper bound keeps every sum of a year of cycles far inside 2^53. */
const amount = z.int().min(1).max(1_000_000_000_000);
const currency = z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code in capitals, e.g. IDR').meta({ example: 'IDR' });

export const CreatePlanBody = z
  .strictObject({
    name: singleLine({ min: 1, max: 100 }),
    description: multiLine({ max: 1000 }).nullable().optional(),
    amount,
    currency,
    interval: z.enum(BILLING_INTERVALS),
    intervalCount: z.int().min(1).max(365).default(1),
    trialDays: z.int().min(0).max(730).nullable().optional(),
    active: z.boolean().default(true),
    metadata: metadata.optional(),
  })
  .meta({ id: 'CreatePlanBody' });
export type CreatePlanBody = z.infer<typeof CreatePlanBody>;

/**
 * Patchable (docs/decisions/billing.md): name, description, amount (future periods only), trialDays (future
 * subscriptions only), active, metadata. Currency and interval shape what running subscriptions owe: fixed.
 */
export const UpdatePlanBody = patchBody(
  z.strictObject({
    name: singleLine({ min: 1, max: 100 }).optional(),
    description: multiLine({ max: 1000 }).nullable().optional(),
    amount: amount.optional(),
    trialDays: z.int().min(0).max(730).nullable().optional(),
    active: z.boolean().optional(),
    metadata: metadata.nullable().optional(),
  }),
  'UpdatePlanBody',
);
export type UpdatePlanBody = z.infer<typeof UpdatePlanBody>;

export const CreatePlanPriceBody = z
  .strictObject({
    amount,
    currency,
    interval: z.enum(BILLING_INTERVALS),
    nickname: singleLine({ min: 1, max: 100 }).nullable().optional(),
    active: z.boolean().default(true),
  })
  .meta({ id: 'CreatePlanPriceBody' });
export type CreatePlanPriceBody = z.infer<typeof CreatePlanPriceBody>;

/** Only `nickname` and `active`: amount and currency are immutable (any other field is 400, as unknown). */
export const UpdatePlanPriceBody = patchBody(
  z.strictObject({
    nickname: singleLine({ min: 1, max: 100 }).nullable().optional(),
    active: z.boolean().optional(),
  }),
  'UpdatePlanPriceBody',
);
export type UpdatePlanPriceBody = z.infer<typeof UpdatePlanPriceBody>;
