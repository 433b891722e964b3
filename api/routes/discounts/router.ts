import { z } from 'zod';
import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import { CreateDiscountCodeBody, DiscountCode, DiscountCodeIdParams, ListDiscountCodesQuery, UpdateDiscountCodeBody } from './schemas';

export function discountCodesRouter(deps: RouteDeps) {
  const { discountCodes } = deps.services;
  return new ApiRouter('/v1/discount-codes', 'Discount codes', deps)
    .add({
      method: 'post',
      path: '/',
      summary: 'Create a discount code (409 CODE_EXISTS when the code exists in any letter case)',
      access: 'secret',
      body: CreateDiscountCodeBody,
      response: DiscountCode,
      status: 201,
      handler: async ({ auth, body }) => ({ data: await discountCodes.create(auth, body) }),
    })
    .add({
      method: 'get',
      path: '/',
      summary: 'List discount codes, newest first (`active` filter)',
      access: 'secret',
      query: ListDiscountCodesQuery,
      response: z.array(DiscountCode),
      paginated: true,
      handler: async ({ auth, query }) => discountCodes.list(auth, query),
    })
    .add({
      method: 'get',
      path: '/:id',
      summary: 'Retrieve a discount code',
      access: 'secret',
      params: DiscountCodeIdParams,
      response: DiscountCode,
      handler: async ({ auth, params }) => ({ data: await discountCodes.retrieve(auth, params.id) }),
    })
    .add({
      method: 'patch',
      path: '/:id',
      summary: 'Update a discount code; every create field except `code`',
      access: 'secret',
      params: DiscountCodeIdParams,
      body: UpdateDiscountCodeBody,
      response: DiscountCode,
      handler: async ({ auth, params, body }) => ({ data: await discountCodes.update(auth, params.id, body) }),
    })
    .add({
      method: 'delete',
      path: '/:id',
      summary: 'Deactivate a discount code (`active: false`; the code is kept and still counts for uniqueness)',
      access: 'secret',
      params: DiscountCodeIdParams,
      response: DiscountCode,
      handler: async ({ auth, params }) => ({ data: await discountCodes.deactivate(auth, params.id) }),
    }).router;
}
