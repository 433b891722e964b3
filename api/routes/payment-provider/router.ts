import express, { type RequestHandler } from 'express';
import type { ProviderCallbackService } from '../../../domain/payment-provider';
import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import { ProviderCallbackAnswer, ProviderCallbackBody } from './schemas';

/** Provider callbacks are small (an invoice or a disbursement); a larger body is no callback of theirs. */
const CALLBACK_BODY_LIMIT = '64kb';

/**
 * The callback's body reader, in place of the JSON parser: the token and the event's time are checked over the raw
 * bytes first, so an unauthenticated request is refused before anything acts on its body.
 */
function verifiedCallbackBody(callbacks: ProviderCallbackService): RequestHandler {
  const raw = express.raw({ type: () => true, limit: CALLBACK_BODY_LIMIT });
  return (req, res, next) => {
    raw(req, res, (err?: unknown) => {
      if (err) return next(err);
      const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      try {
        res.locals.providerCallback = callbacks.verify(bytes, (name) => req.get(name));
        req.body = JSON.parse(bytes.toString('utf8'));
      } catch (failure) {
        return next(failure);
      }
      next();
    });
  };
}

/** The payment provider's inbound callbacks (payment module): one route for every kind. */
export function paymentProviderRouter(deps: RouteDeps) {
  const { providerCallbacks } = deps.services;
  return new ApiRouter('/v1/payment', 'Payment provider', { ...deps, parseJson: verifiedCallbackBody(providerCallbacks) }).add({
    method: 'post',
    path: '/provider-webhooks',
    summary:
      "The payment provider's callbacks (invoice paid or expired, disbursement completed or failed, refund settled), authenticated by the provider account's callback token in x-callback-token and named by webhook-id. 401 UNAUTHORIZED for a missing or wrong token, a body that is not an event, or an event dated outside the provider's retry window; 200 with outcome `duplicate` for an event received before (nothing changes); 404 when the object is not (yet) ours, so the provider retries",
    access: 'public',
    body: ProviderCallbackBody,
    response: ProviderCallbackAnswer,
    errors: ['UNAUTHORIZED', 'RESOURCE_NOT_FOUND', 'PARTNER_UNAVAILABLE'],
    handler: async ({ req }) => ({ data: await providerCallbacks.receive(req.res!.locals.providerCallback) }),
  }).router;
}
