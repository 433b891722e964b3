import { z } from 'zod';
import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import { AdvanceTestClockBody, CreateTestClockBody, DeletedTestClock, ListTestClocksQuery, TestClock, TestClockIdParams } from './schemas';

/** Test keys only: a live key gets 404 on every route (ARCHITECTURE.md). */
export function testClocksRouter(deps: RouteDeps) {
  const { testClocks } = deps.services;
  return new ApiRouter('/v1/payment/test-clocks', 'Test clocks', deps)
    .add({
      method: 'post',
      path: '/',
      summary: 'Create a test clock (test keys only)',
      access: 'secret',
      body: CreateTestClockBody,
      response: TestClock,
      status: 201,
      // Test clocks do not exist for a live key (ARCHITECTURE.md): 404 on every route, these two included.
      errors: ['RESOURCE_NOT_FOUND'],
      handler: async ({ auth, body }) => ({ data: await testClocks.create(auth, body) }),
    })
    .add({
      method: 'get',
      path: '/',
      summary: 'List test clocks, newest first',
      access: 'secret',
      query: ListTestClocksQuery,
      response: z.array(TestClock),
      paginated: true,
      errors: ['RESOURCE_NOT_FOUND'],
      handler: async ({ auth, query }) => testClocks.list(auth, query),
    })
    .add({
      method: 'get',
      path: '/:id',
      summary: 'Retrieve a test clock',
      access: 'secret',
      params: TestClockIdParams,
      response: TestClock,
      handler: async ({ auth, params }) => ({ data: await testClocks.retrieve(auth, params.id) }),
    })
    .add({
      method: 'delete',
      path: '/:id',
      summary: 'Delete a test clock, canceling its subscriptions now',
      access: 'secret',
      params: TestClockIdParams,
      response: DeletedTestClock,
      handler: async ({ auth, params }) => ({ data: await testClocks.remove(auth, params.id) }),
    })
    .add({
      method: 'post',
      path: '/:id/advance',
      summary: 'Advance the clock to a later frozenTime: `advancing`, then `ready` once every due step has run',
      access: 'secret',
      params: TestClockIdParams,
      body: AdvanceTestClockBody,
      response: TestClock,
      errors: ['INVALID_STATE'],
      handler: async ({ auth, params, body }) => ({ data: await testClocks.advance(auth, params.id, body) }),
    }).router;
}
