import { ApiRouter } from '../../endpoint';
import { publicCaller } from '../../public-caller';
import type { RouteDeps } from '../registry';
import { DiscountQuote, ValidateDiscountBody } from './schemas';

/** The public storefront (no key; scoped by merchant slug, live unless a test key is sent). */
export function storefrontPublicRouter(deps: RouteDeps) {
  const { storefront } = deps.services;
  return new ApiRouter('/v1/storefront/public', 'Public storefront', deps).add({
    method: 'post',
    path: '/validate-discount',
    summary: 'Quote a discount code for a cart: 200 with `valid: true` and the amount, or `valid: false` and the reason',
    access: 'public',
    rateLimit: deps.rateLimits.perIpPerMerchant.validateDiscount,
    body: ValidateDiscountBody,
    response: DiscountQuote,
    handler: async ({ req, body }) => {
      const { merchantSlug, ...quote } = body;
      return { data: await storefront.validateDiscount(publicCaller(req, merchantSlug), quote) };
    },
  }).router;
}
