import { z } from 'zod';
import { patchBody } from '../../lib/patch-body';
import { clearable, optionalText } from '../credibility';

/** Codes are what buyers type or see in a link: letters, digits, `-` and `_`. Unique per workspace case-insensitively. */
const code = z.string().trim().regex(/^[A-Za-z0-9_-]{1,50}$/, 'must be 1 to 50 letters, digits, - or _');
const productId = clearable(z.string().regex(/^prod_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a product id (prod_…)').meta({ example: 'prod_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }));

export const CreateReferralLinkBody = z
  .object({
    code,
    label: optionalText(100).optional(),
    targetProductId: productId.optional().meta({ description: 'A published product of the workspace; null or omitted: the landing page' }),
    active: z.boolean().optional(),
  })
  .strict()
  .meta({ id: 'CreateReferralLinkBody' });
export type CreateReferralLinkBody = z.infer<typeof CreateReferralLinkBody>;

export const UpdateReferralLinkBody = patchBody(
  z
    .object({ label: optionalText(100).optional(), targetProductId: productId.optional(), active: z.boolean().optional() })
    .strict(),
  'UpdateReferralLinkBody',
);
export type UpdateReferralLinkBody = z.infer<typeof UpdateReferralLinkBody>;

export const CaptureReferralBody = z
  .object({
    code,
    visitorId: z.string().regex(/^[A-Za-z0-9_.:-]{8,100}$/, 'must be 8 to 100 letters, digits or . _ : -').meta({ description: "The storefront's first-party visitor id (its cookie value)", example: 'v_3f9a2c71d4e8' }),
  })
  .strict()
  .meta({ id: 'CaptureReferralBody' });
export type CaptureReferralBody = z.infer<typeof CaptureReferralBody>;
