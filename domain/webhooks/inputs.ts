import { z } from 'zod';
import { patchBody } from '../../lib/patch-body';
import { EVENT_TYPES, isEventType } from '../../lib/event-types';
import { SINGLE_LINE_CHAR, singleLine } from '../../lib/text';

/** What a webhook endpoint write may carry (document 2's bounds); the API validates bodies with these. */

export const WEBHOOK_URL_MAX_LENGTH = 2048;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 200;

// Stored as sent, so it must already be the URL: `new URL` would quietly drop surrounding spaces and any
// CR, LF or TAB inside, hence the single-line rule and the literal https:// prefix.
const WebhookUrl = singleLine({ min: 1, max: WEBHOOK_URL_MAX_LENGTH, trim: false })
  .superRefine((value, ctx) => {
    if (!value.startsWith('https://')) {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute https:// URL (plain HTTP is not accepted)' });
      return;
    }
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute https:// URL' });
      return;
    }
    if (url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'must use https:// (plain HTTP is not accepted)' });
  })
  .meta({ example: 'https://example.com/webhooks/commerce', pattern: `^https://${SINGLE_LINE_CHAR}*$` });

const EventTypes = z
  .array(z.string())
  .max(EVENT_TYPES.length)
  .superRefine((types, ctx) => {
    types.forEach((type, index) => {
      if (!isEventType(type)) {
        ctx.addIssue({
          code: 'custom',
          path: [index],
          message: `unknown event type "${type.slice(0, 100)}"; valid types: ${EVENT_TYPES.join(', ')}`,
        });
      }
    });
  })
  .transform((types) => [...new Set(types)])
  .meta({
    description: 'Event types to receive; an empty array subscribes to every type.',
    example: ['service.product.created.v1'],
    // Validated above (for a message naming the valid types); documented as the enum it is.
    items: { type: 'string', enum: [...EVENT_TYPES] },
  });

const Description = singleLine({ max: WEBHOOK_DESCRIPTION_MAX_LENGTH, trim: false }).nullable();

export const CreateWebhookEndpointBody = z
  .object({
    url: WebhookUrl,
    events: EventTypes.default([]),
    description: Description.optional(),
    active: z.boolean().default(true),
  })
  .strict()
  .meta({ id: 'CreateWebhookEndpointBody' });
export type CreateWebhookEndpointBody = z.infer<typeof CreateWebhookEndpointBody>;

export const UpdateWebhookEndpointBody = patchBody(
  z
    .object({
      url: WebhookUrl.optional().meta({ description: 'New events go here; pending retries of older events keep the old URL.' }),
      events: EventTypes.optional(),
      description: Description.optional(),
      active: z.boolean().optional(),
      rotateSecret: z.boolean().optional().meta({ description: 'true: a new secret is returned and the old one stops signing at once.' }),
    })
    .strict(),
  'UpdateWebhookEndpointBody',
);
export type UpdateWebhookEndpointBody = z.infer<typeof UpdateWebhookEndpointBody>;

export const SendTestEventBody = z
  .object({ type: z.enum(EVENT_TYPES).optional().meta({ description: 'Defaults to the first subscribed type.' }) })
  .strict()
  .meta({ id: 'SendTestWebhookEventBody' });
export type SendTestEventBody = z.infer<typeof SendTestEventBody>;

