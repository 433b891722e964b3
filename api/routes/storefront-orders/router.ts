import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import { ManualCheckoutBody, ManualCheckoutParams, OrderStatus, OrderTrackerParams, OrderTrackerQuery, PlacedManualOrder } from './schemas';

/**
 * The buyer's side of manual orders under the public storefront: placing one (manual checkout) and following
 * it (order tracker). Both take an optional key of the merchant's own workspace, which selects its environment.
 */
export function storefrontOrdersRouter(deps: RouteDeps) {
  const { manualCheckout, orderTracker } = deps.services;
  return new ApiRouter('/v1/storefront/public', 'Public storefront', deps)
    .add({
      method: 'post',
      path: '/:merchantSlug/manual-checkout',
      summary:
        'Place a manual (bank-transfer style) order for stores without the payment module: 201 with the order number, the amount and the payment instructions, also e-mailed to the buyer. 409 INVALID_STATE when the store has the payment module on',
      access: 'storefront',
      params: ManualCheckoutParams,
      rateLimit: deps.rateLimits.perIpPerMerchant.checkoutCreate,
      body: ManualCheckoutBody,
      response: PlacedManualOrder,
      status: 201,
      errors: ['INVALID_STATE'],
      handler: async ({ params, body, auth }) => ({ data: await manualCheckout.place(params.merchantSlug, auth, body) }),
    })
    .add({
      method: 'get',
      path: '/:merchantSlug/order/:number',
      summary: 'Order tracker: the status of an order by its number; its details only with `email` matching the order’s (rate limited per IP)',
      access: 'storefront',
      params: OrderTrackerParams,
      query: OrderTrackerQuery,
      rateLimit: deps.rateLimits.perIpOrderTracker,
      // The answer depends on the e-mail asked with: never kept by a cache.
      noStore: true,
      response: OrderStatus,
      handler: async ({ params, query, auth }) => ({ data: await orderTracker.track(params.merchantSlug, auth, params.number, query.email) }),
    }).router;
}
