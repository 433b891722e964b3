import { z } from 'zod';
import { pathId } from '../../openapi';

export { CreateReferralLinkBody, UpdateReferralLinkBody } from '../../../domain/referrals';

export const ReferralLinkIdParams = z.object({ id: pathId });

export const ReferralLink = z
  .object({
    id: z.string().meta({ example: 'ref_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    code: z.string(),
    label: z.string().nullable(),
    targetProductId: z.string().nullable().meta({ description: 'null: the link leads to the landing page' }),
    active: z.boolean(),
    clicks: z.int().meta({ description: 'Resolutions of the link' }),
    captures: z.int().meta({ description: 'Distinct visitors attributed to the link' }),
    conversions: z.int().meta({ description: 'Completed checkouts that carried the code' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'ReferralLink' });
