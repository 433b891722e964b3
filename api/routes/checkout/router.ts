import { z } from 'zod';
import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import {
  CheckoutPayment,
  CheckoutRefund,
  CheckoutSession,
  CheckoutSessionIdParams,
  CreateCheckoutSessionBody,
  ListCheckoutSessionsQuery,
  PayCheckoutSessionBody,
  PixelCookiesBody,
  PublicCheckoutSession,
  RefundCheckoutSessionBody,
} from './schemas';

/**
 * Checkout sessions: the merchant's routes (secret key) and the buyer's (no key, under the per-IP public limit;
 * the session id is the buyer's capability).
 */
export function checkoutSessionsRouter(deps: RouteDeps) {
  const { checkoutSessions } = deps.services;
  return new ApiRouter('/v1/payment/checkout-sessions', 'Checkout sessions', deps)
    .add({
      method: 'post',
      path: '/',
      summary: 'Create a checkout session (`Idempotency-Key` supported; the same key with another body is 409 IDEMPOTENCY_KEY_REUSED)',
      access: 'secret',
      body: CreateCheckoutSessionBody,
      response: CheckoutSession,
      status: 201,
      // With the fulfillment module on, the product's stock-tracked variant short of the quantity.
      errors: ['INSUFFICIENT_STOCK', 'PARTNER_UNAVAILABLE'],
      handler: async ({ auth, body }) => ({ data: await checkoutSessions.create(auth, body) }),
    })
    .add({
      method: 'get',
      path: '/',
      summary: 'List checkout sessions, newest first (`status` filter)',
      access: 'secret',
      query: ListCheckoutSessionsQuery,
      response: z.array(CheckoutSession),
      paginated: true,
      handler: async ({ auth, query }) => checkoutSessions.list(auth, query),
    })
    .add({
      method: 'get',
      path: '/:id',
      summary: 'Retrieve a checkout session',
      access: 'secret',
      params: CheckoutSessionIdParams,
      response: CheckoutSession,
      handler: async ({ auth, params }) => ({ data: await checkoutSessions.retrieve(auth, params.id) }),
    })
    .add({
      method: 'post',
      path: '/:id/refund',
      summary: 'Refund a completed session, fully (default: what is left) or in part (409 INVALID_STATE when not completed or fully refunded)',
      access: 'secret',
      params: CheckoutSessionIdParams,
      body: RefundCheckoutSessionBody,
      response: CheckoutRefund,
      errors: ['INVALID_STATE', 'PARTNER_UNAVAILABLE'],
      handler: async ({ auth, params, body, req }) => ({ data: await checkoutSessions.refund(auth, params.id, body, req.header('idempotency-key')) }),
    })
    .add({
      method: 'post',
      path: '/:id/confirm',
      summary: 'Confirm the manual payment of a `pending_review` session: it completes and is fulfilled (409 INVALID_STATE otherwise)',
      access: 'secret',
      params: CheckoutSessionIdParams,
      response: CheckoutSession,
      errors: ['INVALID_STATE'],
      handler: async ({ auth, params }) => ({ data: await checkoutSessions.confirm(auth, params.id) }),
    })
    .add({
      method: 'get',
      path: '/:id/public',
      summary: 'The buyer-safe view of a session, for the hosted checkout page (no key)',
      access: 'public',
      params: CheckoutSessionIdParams,
      response: PublicCheckoutSession,
      handler: async ({ params }) => ({ data: await checkoutSessions.publicView(params.id) }),
    })
    .add({
      method: 'post',
      path: '/:id/pay',
      summary: 'The buyer pays with one of the allowed methods (no key); local mode: the session awaits the merchant’s confirmation',
      access: 'public',
      params: CheckoutSessionIdParams,
      body: PayCheckoutSessionBody,
      response: CheckoutPayment,
      errors: ['INVALID_STATE', 'PARTNER_UNAVAILABLE'],
      handler: async ({ params, body }) => ({ data: await checkoutSessions.pay(params.id, body) }),
    })
    .add({
      method: 'post',
      path: '/:id/pixel-cookies',
      summary: 'Store the two advertising-attribution cookie values for server-side purchase reporting (no key)',
      access: 'public',
      params: CheckoutSessionIdParams,
      body: PixelCookiesBody,
      status: 204,
      errors: ['INVALID_STATE'],
      handler: async ({ params, body }) => {
        await checkoutSessions.storePixelCookies(params.id, body);
        return { noContent: true };
      },
    }).router;
}
