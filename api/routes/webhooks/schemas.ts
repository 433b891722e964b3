import { z } from 'zod';
import { pathId, Timestamp } from '../../openapi';

export { CreateWebhookEndpointBody, SendTestEventBody, UpdateWebhookEndpointBody } from '../../../domain/webhooks';

export const WebhookEndpointIdParams = z.object({ id: pathId });

export const WebhookDeliveryParams = z.object({
  id: pathId,
  eventId: pathId.meta({ description: 'The event whose delivery to this endpoint is retried (`eventId` of its delivery log rows).' }),
});

export const WebhookEndpoint = z
  .object({
    id: z.string().meta({ example: 'whe_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    active: z.boolean(),
    secret: z.string().meta({ description: 'Full value (whsec_…) only when created or rotated; whsec_*** otherwise.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });

export const DeletedWebhookEndpoint = z.object({ id: z.string(), accountId: z.string(), deleted: z.literal(true) }).meta({ id: 'DeletedWebhookEndpoint' });

export const WebhookDeliveryAttempt = z
  .object({
    id: z.string().meta({ example: 'wha_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    eventId: z.string(),
    type: z.string(),
    attempt: z.number().int().meta({ description: '1 for the first send, up to 7.' }),
    deliveryId: z.string().meta({ description: 'The X-Service-Delivery-Id header of the send this attempt records.' }),
    url: z.string(),
    status: z.enum(['succeeded', 'retry_scheduled', 'failed']).meta({ description: 'failed: no retry follows (dropped).' }),
    statusCode: z.number().int().nullable(),
    durationMs: z.number().int(),
    error: z.string().nullable(),
    nextAttemptAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const TestEventSent = z
  .object({ id: z.string().meta({ example: 'evt_test_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }), accountId: z.string(), type: z.string(), endpointId: z.string(), createdAt: Timestamp })
  .meta({ id: 'WebhookTestEventSent' });

export const WebhookDeliveryRetried = z
  .object({
    accountId: z.string(),
    endpointId: z.string(),
    eventId: z.string(),
    attempt: z.number().int().meta({ description: 'The attempt this retry made (or the one already in flight when it came).' }),
    outcome: z.enum(['succeeded', 'failed', 'endpoint_gone', 'endpoint_disabled']),
    status: z
      .enum(['retrying', 'delivered', 'failed', 'stopped'])
      .meta({ description: 'The delivery after the attempt: retrying (the next attempt waits its delay from now), delivered, failed (dropped after its last attempt) or stopped (endpoint gone or disabled).' }),
  })
  .meta({ id: 'WebhookDeliveryRetried' });
