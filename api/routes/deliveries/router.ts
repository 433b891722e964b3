import { z } from 'zod';
import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import { Delivery, DeliveryIdParams, DownloadParams } from './schemas';

/**
 * Deliveries: the merchant's read-only list and retrieve (secret key), and the buyer's download through a
 * delivery's signed `downloadUrl` (no key; per-IP rate limit). The download path sits under the public
 * storefront's prefix, so this router is mounted before that one, whose `/:merchantSlug/:productSlug` would
 * otherwise answer it.
 */
export function deliveriesRouter(deps: RouteDeps) {
  const { deliveries } = deps.services;
  return new ApiRouter('/v1/storefront', 'Deliveries', deps)
    .add({
      method: 'get',
      path: '/deliveries',
      summary: 'List every delivery, newest first (no pagination); each download link is signed anew',
      access: 'secret',
      response: z.array(Delivery),
      handler: async ({ auth }) => ({ data: await deliveries.list(auth) }),
    })
    .add({
      method: 'get',
      path: '/deliveries/:id',
      summary: 'Retrieve a delivery; a download link is signed anew, valid 7 days from now',
      access: 'secret',
      params: DeliveryIdParams,
      response: Delivery,
      handler: async ({ auth, params }) => ({ data: await deliveries.retrieve(auth, params.id) }),
    })
    .add({
      method: 'get',
      path: '/public/downloads/:token',
      summary:
        "Download a delivery's file through its signed link, counting the download; 403 FORBIDDEN for a tampered or expired link or one past its limit, 404 once the file was deleted",
      access: 'public',
      params: DownloadParams,
      produces: 'application/octet-stream',
      errors: ['FORBIDDEN'],
      handler: async ({ params, req }) => ({ file: await deliveries.download(params.token, { count: req.method !== 'HEAD' }) }),
    }).router;
}
