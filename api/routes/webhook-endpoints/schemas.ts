import { z } from 'zod';
import { EVENT_TYPES, isEventType } from '../../../lib/event-types';

export const WEBHOOK_URL_MAX_LENGTH = 2048;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 200;

const WebhookUrl = z
  .string()
  .max(WEBHOOK_URL_MAX_LENGTH)
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute https:// URL' });
      return;
    }
    if (url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'must use https:// (plain HTTP is not accepted)' });
  })
  .meta({ example: 'https://example.com/webhooks/commerce' });

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
  .meta({ description: 'Event types to receive; an empty array subscribes to every type.', example: ['service.product.created.v1'] });

const Description = z.string().max(WEBHOOK_DESCRIPTION_MAX_LENGTH).nullable();

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

export const UpdateWebhookEndpointBody = z
  .object({
    url: WebhookUrl.optional().meta({ description: 'New events go here; pending retries of older events keep the old URL.' }),
    events: EventTypes.optional(),
    description: Description.optional(),
    active: z.boolean().optional(),
    rotateSecret: z.boolean().optional().meta({ description: 'true: a new secret is returned and the old one stops signing at once.' }),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'send at least one field to update' })
  .meta({ id: 'UpdateWebhookEndpointBody' });
export type UpdateWebhookEndpointBody = z.infer<typeof UpdateWebhookEndpointBody>;

export const SendTestEventBody = z
  .object({ type: z.enum(EVENT_TYPES).optional().meta({ description: 'Defaults to the first subscribed type.' }) })
  .strict()
  .meta({ id: 'SendTestWebhookEventBody' });
export type SendTestEventBody = z.infer<typeof SendTestEventBody>;

export const WebhookEndpointIdParams = z.object({ id: z.string().min(1).max(100) });

export const WebhookEndpoint = z
  .object({
    id: z.string().meta({ example: 'whe_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    active: z.boolean(),
    secret: z.string().meta({ description: 'Full value (whsec_…) only when created or rotated; whsec_*** otherwise.' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const DeletedWebhookEndpoint = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'DeletedWebhookEndpoint' });

export const WebhookDeliveryAttempt = z
  .object({
    id: z.string().meta({ example: 'wha_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    eventId: z.string(),
    type: z.string(),
    attempt: z.number().int().meta({ description: '1 for the first send, up to 7.' }),
    deliveryId: z.string().meta({ description: 'The X-Service-Delivery-Id header of this attempt.' }),
    url: z.string(),
    status: z.enum(['succeeded', 'retry_scheduled', 'failed']).meta({ description: 'failed: no retry follows (dropped).' }),
    statusCode: z.number().int().nullable(),
    durationMs: z.number().int(),
    error: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const TestEventSent = z
  .object({ id: z.string().meta({ example: 'evt_test_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }), type: z.string(), endpointId: z.string(), createdAt: z.string() })
  .meta({ id: 'WebhookTestEventSent' });
