import { z } from 'zod';
import { BILLING_INTERVALS } from '../../../db/models';
import { pageQuery } from '../../pagination';
import { pathId } from '../../openapi';

export { CreatePlanBody, CreatePlanPriceBody, UpdatePlanBody, UpdatePlanPriceBody } from '../../../domain/plans';

export const ListPlansQuery = pageQuery().extend({
  includeArchived: z.enum(['true', 'false']).transform((v) => v === 'true').optional().meta({ description: 'Also list archived (`active: false`) plans' }),
});

export const PlanIdParams = z.object({ id: pathId });
export const PriceIdParams = z.object({ priceId: pathId });

export const PlanPrice = z
  .object({
    id: z.string().meta({ example: 'price_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    planId: z.string(),
    amount: z.int(),
    currency: z.string(),
    interval: z.enum(BILLING_INTERVALS),
    nickname: z.string().nullable(),
    active: z.boolean(),
    createdAt: z.string(),
  })
  .meta({ id: 'PlanPrice' });

export const Plan = z
  .object({
    id: z.string().meta({ example: 'plan_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    amount: z.int().meta({ description: 'Smallest currency unit per interval' }),
    currency: z.string(),
    interval: z.enum(BILLING_INTERVALS),
    intervalCount: z.int(),
    trialDays: z.int().nullable(),
    active: z.boolean(),
    prices: z.array(PlanPrice),
    metadata: z.record(z.string(), z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Plan' });
