import { z } from 'zod';
import { patchBody } from '../../lib/patch-body';
import { singleLine, stringMap } from '../../lib/text';

/** Like customer and plan metadata: at most 50 string entries. */
const metadata = stringMap({ keyMax: 40, maxKeys: 50, value: singleLine({ max: 500, trim: false }) }).meta({
  description: 'String-to-string map, at most 50 entries (keys 1 to 40 characters, values at most 500)',
});

const planId = z.string().regex(/^plan_[0-9A-Za-z]{1,64}$/, 'must be a plan_ id').meta({ example: 'plan_01JD4X7V1QZ8N6Y3K2M5P9R0TS' });

/** Longest trial (two years), as for a plan's default trial. */
export const MAX_TRIAL_DAYS = 730;

export const CreateSubscriptionBody = z
  .strictObject({
    customerId: z
      .string()
      .regex(/^cust?_[0-9A-Za-z]{1,64}$/, 'must be a cust_ (local) or cus_ (provider) id')
      .meta({ example: 'cust_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    planId,
    trialDays: z.int().min(0).max(MAX_TRIAL_DAYS).optional().meta({ description: "Overrides the plan's trialDays; 0 starts without a trial" }),
    metadata: metadata.optional(),
  })
  .meta({ id: 'CreateSubscriptionBody' });
export type CreateSubscriptionBody = z.infer<typeof CreateSubscriptionBody>;

export const UpdateSubscriptionBody = patchBody(
  z.strictObject({
    planId: planId.optional().meta({ description: 'Switch plan (same currency and interval), prorated against the current period' }),
    status: z.enum(['paused', 'active']).optional().meta({ description: '`paused` skips renewals until `active` again; cancel with DELETE' }),
    metadata: metadata.nullable().optional().meta({ description: 'Replaces the map whole; `null` clears it' }),
  }),
  'UpdateSubscriptionBody',
);
export type UpdateSubscriptionBody = z.infer<typeof UpdateSubscriptionBody>;
