import { z } from 'zod';
import { singleLine } from '../../lib/text';

/** The analytics events a storefront page reports (the standard funnel of the three pixel providers). */
export const TRACK_EVENTS = ['page_view', 'view_content', 'add_to_cart', 'initiate_checkout', 'purchase', 'search', 'lead'] as const;

export const TrackBody = z
  .object({
    merchantSlug: singleLine({ min: 1, max: 253, trim: false }),
    event: z.enum(TRACK_EVENTS),
    visitorId: z.string().regex(/^[A-Za-z0-9_.:-]{8,100}$/).meta({ example: 'v_3f9a2c71d4e8' }).optional(),
    productId: z.string().regex(/^prod_[0-9A-HJKMNP-TV-Z]{26}$/).meta({ example: 'prod_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }).optional(),
    url: z.url({ protocol: /^https?$/ }).max(2048).optional(),
    referrer: z.url({ protocol: /^https?$/ }).max(2048).optional(),
    properties: z
      .record(z.string().regex(/^[A-Za-z0-9_]{1,40}$/), singleLine({ max: 200, trim: false }))
      .refine((p) => Object.keys(p).length <= 20, 'at most 20 properties')
      .optional(),
  })
  .strict()
  .meta({ id: 'TrackEventBody' });
export type TrackBody = z.infer<typeof TrackBody>;

/** `<base64url payload>.<base64url HMAC>`; a payload of a workspace id and an e-mail stays far below 1000 characters. */
export const UnsubscribeQuery = z.object({ token: z.string().max(1000).regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'not an unsubscribe token') });
