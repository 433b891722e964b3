import { z } from 'zod';
import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import { ListManualOrdersQuery, ManualOrder, ManualOrderIdParams, ManualOrderSummary, UpdateManualOrderBody } from './schemas';

export function manualOrdersRouter(deps: RouteDeps) {
  const { manualOrders } = deps.services;
  return new ApiRouter('/v1/manual-orders', 'Manual orders', deps)
    .add({
      method: 'get',
      path: '/',
      summary: 'List manual orders, newest first by placedAt (`paymentStatus`, `fulfillmentStatus` filters; 25 a page by default)',
      access: 'secret',
      query: ListManualOrdersQuery,
      response: z.array(ManualOrderSummary),
      paginated: true,
      handler: async ({ auth, query }) => manualOrders.list(auth, query),
    })
    .add({
      method: 'get',
      path: '/:id',
      summary: 'Retrieve a manual order with its merchant-only fields',
      access: 'secret',
      params: ManualOrderIdParams,
      response: ManualOrder,
      handler: async ({ auth, params }) => ({ data: await manualOrders.retrieve(auth, params.id) }),
    })
    .add({
      method: 'patch',
      path: '/:id',
      summary:
        'Move the payment or fulfillment status, set tracking, add notes. awaiting_payment → payment_confirmed (e-mails the buyer, fulfils digital and licence lines) or canceled; shipped e-mails a shipping notification. A refused move is 409 INVALID_STATE naming the current state',
      access: 'secret',
      params: ManualOrderIdParams,
      body: UpdateManualOrderBody,
      response: ManualOrder,
      errors: ['INVALID_STATE'],
      handler: async ({ auth, params, body }) => ({ data: await manualOrders.update(auth, params.id, body) }),
    }).router;
}
