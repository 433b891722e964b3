import { z } from 'zod';
import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import { CreatePlanBody, CreatePlanPriceBody, ListPlansQuery, Plan, PlanIdParams, PlanPrice, PriceIdParams, UpdatePlanBody, UpdatePlanPriceBody } from './schemas';

export function plansRouter(deps: RouteDeps) {
  const { plans } = deps.services;
  return new ApiRouter('/v1/payment/plans', 'Plans', deps)
    .add({
      method: 'post',
      path: '/',
      summary: 'Create a plan (`Idempotency-Key` supported)',
      access: 'secret',
      body: CreatePlanBody,
      response: Plan,
      status: 201,
      errors: ['QUOTA_EXCEEDED'],
      handler: async ({ auth, body }) => ({ data: await plans.create(auth, body) }),
    })
    .add({
      method: 'get',
      path: '/',
      summary: 'List plans, newest first; archived plans only with `includeArchived=true`',
      access: 'secret',
      query: ListPlansQuery,
      response: z.array(Plan),
      paginated: true,
      handler: async ({ auth, query }) => plans.list(auth, query),
    })
    .add({
      method: 'patch',
      path: '/prices/:priceId',
      summary: 'Update a price tier: only `nickname` and `active` (amount and currency are immutable)',
      access: 'secret',
      params: PriceIdParams,
      body: UpdatePlanPriceBody,
      response: PlanPrice,
      handler: async ({ auth, params, body }) => ({ data: await plans.updatePrice(auth, params.priceId, body) }),
    })
    .add({
      method: 'get',
      path: '/:id',
      summary: 'Retrieve a plan with its price tiers',
      access: 'secret',
      params: PlanIdParams,
      response: Plan,
      handler: async ({ auth, params }) => ({ data: await plans.retrieve(auth, params.id) }),
    })
    .add({
      method: 'patch',
      path: '/:id',
      summary: 'Update a plan; an amount change applies to periods that start afterwards',
      access: 'secret',
      params: PlanIdParams,
      body: UpdatePlanBody,
      response: Plan,
      errors: ['QUOTA_EXCEEDED'],
      handler: async ({ auth, params, body }) => ({ data: await plans.update(auth, params.id, body) }),
    })
    .add({
      method: 'delete',
      path: '/:id',
      summary: 'Archive a plan (`active: false`): running subscriptions continue, new ones are refused',
      access: 'secret',
      params: PlanIdParams,
      response: Plan,
      handler: async ({ auth, params }) => ({ data: await plans.archive(auth, params.id) }),
    })
    .add({
      method: 'post',
      path: '/:id/prices',
      summary: 'Add a price tier to a plan',
      access: 'secret',
      params: PlanIdParams,
      body: CreatePlanPriceBody,
      response: PlanPrice,
      status: 201,
      handler: async ({ auth, params, body }) => ({ data: await plans.addPrice(auth, params.id, body) }),
    }).router;
}
