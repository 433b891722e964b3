import { z } from 'zod';
import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import { CreateCustomerBody, Customer, CustomerIdParams, ListCustomersQuery, UpdateCustomerBody } from './schemas';

/** No DELETE (document 2): the method answers 405 METHOD_NOT_ALLOWED in the envelope. */
export function customersRouter(deps: RouteDeps) {
  const { customers } = deps.services;
  return new ApiRouter('/v1/payment/customers', 'Customers', deps)
    .add({
      method: 'post',
      path: '/',
      summary: 'Create a customer (local mode: e-mail required, 409 VALIDATION_ERROR when already used in this workspace and environment; provider mode: a cus_ customer at the payment provider, e-mail optional)',
      access: 'secret',
      body: CreateCustomerBody,
      response: Customer,
      status: 201,
      errors: ['QUOTA_EXCEEDED', 'PARTNER_UNAVAILABLE'],
      handler: async ({ auth, body, req }) => ({ data: await customers.create(auth, body, req.header('idempotency-key')) }),
    })
    .add({
      method: 'get',
      path: '/',
      summary: 'List customers, newest first (`email`: exact, case-sensitive)',
      access: 'secret',
      query: ListCustomersQuery,
      response: z.array(Customer),
      paginated: true,
      handler: async ({ auth, query }) => customers.list(auth, query),
    })
    .add({
      method: 'get',
      path: '/:id',
      summary: 'Retrieve a customer',
      access: 'secret',
      params: CustomerIdParams,
      response: Customer,
      handler: async ({ auth, params }) => ({ data: await customers.retrieve(auth, params.id) }),
    })
    .add({
      method: 'patch',
      path: '/:id',
      summary: 'Update a customer (partial; `metadata: null` clears it)',
      access: 'secret',
      params: CustomerIdParams,
      body: UpdateCustomerBody,
      response: Customer,
      errors: ['PARTNER_UNAVAILABLE'],
      handler: async ({ auth, params, body }) => ({ data: await customers.update(auth, params.id, body) }),
    }).router;
}
