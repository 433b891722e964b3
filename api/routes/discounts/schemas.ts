import { z } from 'zod';
import { DISCOUNT_SCOPES, DISCOUNT_TYPES } from '../../../db/models/discount-code';
import { CURRENCIES } from '../../../db/models/product';
import { pageQuery } from '../../pagination';
import { pathId } from '../../openapi';

export { CreateDiscountCodeBody, UpdateDiscountCodeBody } from '../../../domain/discounts';

export const ListDiscountCodesQuery = pageQuery().extend({
  active: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
});
export type ListDiscountCodesQuery = z.infer<typeof ListDiscountCodesQuery>;

export const DiscountCodeIdParams = z.object({ id: pathId });

export const DiscountCode = z
  .object({
    id: z.string().meta({ example: 'disc_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    code: z.string(),
    description: z.string().nullable(),
    type: z.enum(DISCOUNT_TYPES),
    value: z.int().meta({ description: 'Percent types: 1 to 100; fixed types: smallest currency unit' }),
    currency: z.enum(CURRENCIES),
    scope: z.enum(DISCOUNT_SCOPES),
    productIds: z.array(z.string()).nullable(),
    tagFilter: z.array(z.string()).nullable(),
    minPurchaseAmount: z.int().nullable().meta({ description: 'Smallest currency unit' }),
    maxUsesTotal: z.int().nullable(),
    maxUsesPerCustomer: z.int().nullable(),
    usesTotal: z.int().meta({ description: 'Incremented at each successful checkout completion; not settable' }),
    startsAt: z.string().nullable(),
    expiresAt: z.string().nullable(),
    active: z.boolean(),
    public: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'DiscountCode' });
