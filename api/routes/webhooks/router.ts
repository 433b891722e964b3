import { z } from 'zod';
import { ApiRouter } from '../../endpoint';
import { pageQuery } from '../../pagination';
import {
  CreateWebhookEndpointBody,
  DeletedWebhookEndpoint,
  SendTestEventBody,
  TestEventSent,
  UpdateWebhookEndpointBody,
  WebhookDeliveryAttempt,
  WebhookDeliveryParams,
  WebhookDeliveryRetried,
  WebhookEndpoint,
  WebhookEndpointIdParams,
} from './schemas';
import type { RouteDeps } from '../route-deps';

export function webhookEndpointsRouter(deps: RouteDeps) {
  const service = deps.services.webhookEndpoints;
  return new ApiRouter('/v1/payment/webhook-endpoints', 'Webhook endpoints', deps)
    .add({
      method: 'post',
      path: '/',
      summary: 'Register an HTTPS endpoint; its signing secret is returned once',
      access: 'secret',
      body: CreateWebhookEndpointBody,
      response: WebhookEndpoint,
      status: 201,
      errors: ['QUOTA_EXCEEDED'],
      handler: async ({ auth, body }) => ({ data: await service.create(auth, body) }),
    })
    .add({
      method: 'get',
      path: '/',
      summary: 'List the endpoints of the calling environment, newest first (secrets redacted)',
      access: 'secret',
      query: pageQuery(),
      response: z.array(WebhookEndpoint),
      paginated: true,
      handler: async ({ auth, query }) => service.list(auth, query),
    })
    .add({
      method: 'get',
      path: '/:id',
      summary: 'Retrieve an endpoint (secret redacted)',
      access: 'secret',
      params: WebhookEndpointIdParams,
      response: WebhookEndpoint,
      handler: async ({ auth, params }) => ({ data: await service.retrieve(auth, params.id) }),
    })
    .add({
      method: 'patch',
      path: '/:id',
      summary: 'Update url, events, description or active, or rotate the secret',
      access: 'secret',
      params: WebhookEndpointIdParams,
      body: UpdateWebhookEndpointBody,
      response: WebhookEndpoint,
      errors: ['INVALID_STATE'],
      handler: async ({ auth, params, body }) => ({ data: await service.update(auth, params.id, body) }),
    })
    .add({
      method: 'delete',
      path: '/:id',
      summary: 'Delete an endpoint; its pending retries are dropped',
      access: 'secret',
      params: WebhookEndpointIdParams,
      response: DeletedWebhookEndpoint,
      errors: ['INVALID_STATE'],
      handler: async ({ auth, params }) => ({ data: await service.remove(auth, params.id) }),
    })
    .add({
      method: 'get',
      path: '/:id/deliveries',
      summary: 'Delivery attempts to this endpoint, newest first',
      access: 'secret',
      params: WebhookEndpointIdParams,
      query: pageQuery(),
      response: z.array(WebhookDeliveryAttempt),
      paginated: true,
      handler: async ({ auth, params, query }) => service.listDeliveries(auth, params.id, query),
    })
    .add({
      method: 'post',
      path: '/:id/deliveries/:eventId/retry',
      summary: 'Retry the delivery of an event to this endpoint now, skipping the rest of its wait; answers the attempt made',
      access: 'secret',
      params: WebhookDeliveryParams,
      response: WebhookDeliveryRetried,
      errors: ['INVALID_STATE'],
      handler: async ({ auth, params }) => ({ data: await service.retryDelivery(auth, params.id, params.eventId) }),
    })
    .add({
      method: 'post',
      path: '/:id/test',
      summary: 'Send a synthetic evt_test_ event to this endpoint through the normal delivery path',
      access: 'secret',
      params: WebhookEndpointIdParams,
      body: SendTestEventBody,
      response: TestEventSent,
      status: 202,
      errors: ['INVALID_STATE'],
      handler: async ({ auth, params, body }) => ({ data: await service.sendTest(auth, params.id, body) }),
    }).router;
}
