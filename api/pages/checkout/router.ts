import express, { type Request, type Router } from 'express';
import type { HostedCheckoutService } from '../../../domain/checkout';
import { AppError } from '../../../lib/errors';
import { httpStatusOf } from '../../errors';
import type { RateLimits } from '../../middleware/rate-limit';
import { sameOriginForm } from '../../middleware/same-origin';
import { COMMON_MESSAGES, methodNotAllowed, pageErrors, serveAsset } from '../shared/router';
import { renderMessage, renderSession } from './render';

export interface CheckoutPageDeps {
  hostedCheckout: HostedCheckoutService;
  rateLimits: Pick<RateLimits, 'perIp'>;
  publicBaseUrl: string;
}

const NOT_FOUND = { status: 404, heading: 'Checkout not found', message: 'There is no checkout at this address. Check the link you followed, or start again from the shop.' };

/** What a buyer reads when paying was refused, above the page of the session's current state. */
const PAY_REFUSALS: Partial<Record<AppError['code'], string>> = {
  VALIDATION_ERROR: 'Choose one of the payment methods below.',
  INVALID_STATE: 'This checkout can no longer be paid.',
};

const paramId = (req: Request) => String(req.params.id);

/**
 * The hosted checkout page, served outside `/api` at `/checkout/:id` (the session's `hostedUrl` in local mode):
 * server-rendered HTML that reads the session from the database on every load and needs no JavaScript. Paying
 * is a plain form post that answers `303` back to the page (post/redirect/get), so a reload never pays twice, or,
 * for a provider-mode session, on to the provider's payment page.
 */
export function checkoutPages({ hostedCheckout, rateLimits, publicBaseUrl }: CheckoutPageDeps): Router {
  const router = express.Router();

  router.get('/assets/:name', serveAsset);

  router.get('/:id', rateLimits.perIp, async (req, res) => {
    const view = await hostedCheckout.view(paramId(req));
    if (!view) return renderMessage(res, req.baseUrl, NOT_FOUND);
    renderSession(res, req.baseUrl, view);
  });

  router.post(
    '/:id/pay',
    rateLimits.perIp,
    sameOriginForm(publicBaseUrl),
    express.urlencoded({ extended: false, limit: '1kb', parameterLimit: 10 }),
    async (req, res) => {
      const id = paramId(req);
      let paid;
      try {
        paid = await hostedCheckout.pay(id, (req.body as Record<string, unknown> | undefined)?.paymentMethod);
      } catch (err) {
        const notice = err instanceof AppError ? PAY_REFUSALS[err.code] : undefined;
        if (!notice) throw err;
        // The session's true state, with why the pay did not happen; a 4xx, so nothing caches it as a success.
        const view = await hostedCheckout.view(id);
        if (!view) return renderMessage(res, req.baseUrl, NOT_FOUND);
        return renderSession(res, req.baseUrl, view, { status: httpStatusOf(err as AppError), notice });
      }
      // Provider mode: on to the provider's page. Local mode: back to this page, relative to the host the buyer is
      // on (a proxy or custom host may differ from PUBLIC_BASE_URL), which shows the transfer details.
      res.redirect(303, paid.providerUrl ?? `${req.baseUrl}/${encodeURIComponent(id)}`);
    },
  );

  router.all('/:id', methodNotAllowed('GET, HEAD'));
  router.all('/:id/pay', methodNotAllowed('POST'));
  router.use((req, res) => renderMessage(res, req.baseUrl, NOT_FOUND));
  router.use(pageErrorsOfCheckout);
  return router;
}

/** Errors as pages, never the API's JSON envelope; anything unknown is logged and a plain 500 page. */
const pageErrorsOfCheckout = pageErrors({
  footer: 'Checkout',
  messages: {
    ...COMMON_MESSAGES,
    400: { heading: 'Request not understood', message: 'The address or the form could not be read. Go back to the checkout page and try again.' },
    403: { heading: 'Form refused', message: 'This payment form can only be submitted from its own checkout page. Go back to the checkout page and pay from there.' },
    404: NOT_FOUND,
    413: { heading: 'Request too large', message: 'The form sent more than a checkout needs. Go back to the checkout page and try again.' },
  },
  fallback: { heading: 'Something went wrong', message: 'The checkout could not be shown just now. Please reload the page in a moment.' },
  failure: 'hosted checkout page failed',
});
