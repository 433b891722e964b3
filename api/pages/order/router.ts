import express, { type Router } from 'express';
import type { OrderPageService } from '../../../domain/checkout';
import type { RateLimits } from '../../middleware/rate-limit';
import { COMMON_MESSAGES, methodNotAllowed, pageErrors, serveAsset } from '../shared/router';
import { renderMessage, renderOrder } from './render';

export interface OrderPageDeps {
  orderPage: OrderPageService;
  rateLimits: Pick<RateLimits, 'perIp'>;
}

const NOT_FOUND = { status: 404, heading: 'Order not found', message: 'There is no order at this address. Check the link you followed, or ask the shop you bought from.' };

/**
 * The buyer's order page at `/order/:deliveryId` (document 1's `/order/:deliveryId`, the `del_` id being the
 * credential), outside `/api`: the same view as `GET /api/v1/storefront/public/order/:deliveryId`, server-rendered
 * in the hosted checkout page's layout, read from the database on every load, no JavaScript.
 */
export function orderPages({ orderPage, rateLimits }: OrderPageDeps): Router {
  const router = express.Router();
  router.get('/assets/:name', serveAsset);
  router.get('/:deliveryId', rateLimits.perIp, async (req, res) => {
    const view = await orderPage.view(String(req.params.deliveryId));
    if (!view) return renderMessage(res, req.baseUrl, NOT_FOUND);
    renderOrder(res, req.baseUrl, view);
  });
  router.all('/:deliveryId', methodNotAllowed('GET, HEAD'));
  router.use((req, res) => renderMessage(res, req.baseUrl, NOT_FOUND));
  router.use(
    pageErrors({
      footer: 'Delivery',
      messages: {
        ...COMMON_MESSAGES,
        400: { heading: 'Address not understood', message: 'This address could not be read. Check the link you followed.' },
        404: NOT_FOUND,
      },
      fallback: { heading: 'Something went wrong', message: 'Your order could not be shown just now. Please reload the page in a moment.' },
      failure: 'order page failed',
    }),
  );
  return router;
}
