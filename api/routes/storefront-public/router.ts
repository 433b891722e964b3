import { z } from 'zod';
import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../registry';
import {
  CaptureReferralBody,
  DiscountQuote,
  Landing,
  Merchant,
  MerchantParams,
  Pixels,
  ProductPage,
  ProductPageParams,
  PublicDiscountCode,
  ReferralCapture,
  ReferralParams,
  ReferralTarget,
  ResolveParams,
  TrackAccepted,
  TrackBody,
  Unsubscribed,
  UnsubscribeQuery,
  ValidateDiscountBody,
} from './schemas';

/** Buyers' reads, cached for a minute by any CDN in front (ETag + 304). */
const CACHE_SECONDS = 60;

/**
 * The public storefront reads (no key; a key of the merchant's own workspace may be sent to read its
 * environment). `:merchantSlug` is the workspace slug or one of its custom domains. Fixed segments
 * (`pixels`, later `sitemap`, `blog`, `feeds`, …) are declared before `/:productSlug` and win over a product
 * of that slug.
 */
export function storefrontPublicRouter(deps: RouteDeps) {
  const { publicStorefront: storefront, referralLinks, storefrontActivity } = deps.services;
  const unsubscribe = {
    summary: 'Unsubscribe the e-mail named by a signed token from abandoned-cart e-mails (the link in such an e-mail)',
    access: 'public' as const,
    query: UnsubscribeQuery,
    response: Unsubscribed,
  };
  return new ApiRouter('/v1/storefront/public', 'Public storefront', deps)
    .add({
      method: 'post',
      path: '/track',
      summary: 'Record a storefront analytics event (page view, add to cart, …); kept 30 days',
      access: 'storefront',
      body: TrackBody,
      response: TrackAccepted,
      status: 202,
      handler: async ({ body, auth }) => ({ data: await storefrontActivity.track(auth, body) }),
    })
    .add({
      method: 'post',
      path: '/validate-discount',
      summary: 'Quote a discount code for a cart: 200 with `valid: true` and the amount, or `valid: false` and the reason',
      access: 'storefront',
      rateLimit: deps.rateLimits.perIpPerMerchant.validateDiscount,
      body: ValidateDiscountBody,
      response: DiscountQuote,
      handler: async ({ body, auth }) => {
        const { merchantSlug, ...quote } = body;
        return { data: await storefront.validateDiscount(merchantSlug, auth, quote) };
      },
    })
    .add({ ...unsubscribe, method: 'get', path: '/abandoned-cart/unsubscribe', handler: async ({ query }) => ({ data: await storefrontActivity.unsubscribe(query.token) }) })
    .add({ ...unsubscribe, method: 'post', path: '/abandoned-cart/unsubscribe', handler: async ({ query }) => ({ data: await storefrontActivity.unsubscribe(query.token) }) })
    .add({
      method: 'get',
      path: '/resolve/:slug',
      summary: 'Resolve a workspace slug or custom domain to the workspace id and branding',
      access: 'storefront',
      params: ResolveParams,
      response: Merchant,
      cacheSeconds: CACHE_SECONDS,
      handler: async ({ params }) => ({ data: await storefront.resolve(params.slug) }),
    })
    .add({
      method: 'get',
      path: '/:merchantSlug',
      summary: 'Landing payload: merchant branding, published products, pixels',
      access: 'storefront',
      params: MerchantParams,
      response: Landing,
      cacheSeconds: CACHE_SECONDS,
      handler: async ({ params, auth }) => ({ data: await storefront.landing(params.merchantSlug, auth) }),
    })
    .add({
      method: 'get',
      path: '/:merchantSlug/discount-codes',
      summary: 'Publicly listed discount codes usable now (active, public, inside their window)',
      access: 'storefront',
      params: MerchantParams,
      response: z.array(PublicDiscountCode),
      cacheSeconds: CACHE_SECONDS,
      handler: async ({ params, auth }) => ({ data: await storefront.discountCodes(params.merchantSlug, auth) }),
    })
    .add({
      method: 'get',
      path: '/:merchantSlug/pixels',
      summary: 'Pixel and measurement ids of the storefront',
      access: 'storefront',
      params: MerchantParams,
      response: Pixels,
      cacheSeconds: CACHE_SECONDS,
      handler: async ({ params, auth }) => ({ data: await storefront.pixels(params.merchantSlug, auth) }),
    })
    .add({
      method: 'get',
      path: '/:merchantSlug/r/:code',
      summary: 'Resolve a referral link to its target page, counting the click',
      access: 'storefront',
      params: ReferralParams,
      response: ReferralTarget,
      handler: async ({ params, auth }) => ({ data: await referralLinks.resolve(params.merchantSlug, auth, params.code) }),
    })
    .add({
      method: 'post',
      path: '/:merchantSlug/referral/capture',
      summary: 'Attribute a visitor to a referral link for 30 days (the storefront calls it on arrival through a link)',
      access: 'storefront',
      params: MerchantParams,
      body: CaptureReferralBody,
      response: ReferralCapture,
      status: 201,
      handler: async ({ params, body, auth }) => ({ data: await referralLinks.capture(params.merchantSlug, auth, body) }),
    })
    .add({
      method: 'get',
      path: '/:merchantSlug/:productSlug',
      summary: 'A published product with its variants, files (digital), inventory state and cross-sell list',
      access: 'storefront',
      params: ProductPageParams,
      response: ProductPage,
      cacheSeconds: CACHE_SECONDS,
      handler: async ({ params, auth }) => ({ data: await storefront.product(params.merchantSlug, params.productSlug, auth) }),
    }).router;
}
