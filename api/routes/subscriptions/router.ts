import { z } from 'zod';
import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import { CancelSubscriptionQuery, CreateSubscriptionBody, ListSubscriptionsQuery, Subscription, SubscriptionIdParams, UpdateSubscriptionBody } from './schemas';

export function subscriptionsRouter(deps: RouteDeps) {
  const { subscriptions } = deps.services;
  return new ApiRouter('/v1/payment/subscriptions', 'Subscriptions', deps)
    .add({
      method: 'post',
      path: '/',
      summary: 'Create a subscription (`Idempotency-Key` required): trialing, or active with its first invoice open',
      access: 'secret',
      body: CreateSubscriptionBody,
      response: Subscription,
      status: 201,
      idempotencyKey: 'required',
      errors: ['QUOTA_EXCEEDED', 'INVALID_STATE', 'RESOURCE_NOT_FOUND'],
      handler: async ({ auth, body }) => ({ data: await subscriptions.create(auth, body) }),
    })
    .add({
      method: 'get',
      path: '/',
      summary: 'List subscriptions, newest first (`status`, `customerId`)',
      access: 'secret',
      query: ListSubscriptionsQuery,
      response: z.array(Subscription),
      paginated: true,
      handler: async ({ auth, query }) => subscriptions.list(auth, query),
    })
    .add({
      method: 'get',
      path: '/:id',
      summary: 'Retrieve a subscription',
      access: 'secret',
      params: SubscriptionIdParams,
      response: Subscription,
      handler: async ({ auth, params }) => ({ data: await subscriptions.retrieve(auth, params.id) }),
    })
    .add({
      method: 'patch',
      path: '/:id',
      summary: 'Switch plan (prorated), pause or resume, replace metadata',
      access: 'secret',
      params: SubscriptionIdParams,
      body: UpdateSubscriptionBody,
      response: Subscription,
      errors: ['INVALID_STATE'],
      handler: async ({ auth, params, body }) => ({ data: await subscriptions.update(auth, params.id, body) }),
    })
    .add({
      method: 'delete',
      path: '/:id',
      summary: 'Cancel at the period end (default) or now (`immediate=true`, no refund)',
      access: 'secret',
      params: SubscriptionIdParams,
      query: CancelSubscriptionQuery,
      response: Subscription,
      errors: ['INVALID_STATE'],
      handler: async ({ auth, params, query }) => ({ data: await subscriptions.cancel(auth, params.id, { immediate: query.immediate ?? false }) }),
    }).router;
}
