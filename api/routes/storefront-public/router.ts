import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../registry';
import { Landing, Merchant, MerchantParams, Pixels, ProductPage, ProductPageParams, ResolveParams } from './schemas';

/** Buyers' reads, cached for a minute by any CDN in front (ETag + 304). */
const CACHE_SECONDS = 60;

/**
 * The public storefront reads (no key; a key of the merchant's own workspace may be sent to read its
 * environment). `:merchantSlug` is the workspace slug or one of its custom domains. Fixed segments
 * (`pixels`, later `sitemap`, `blog`, `feeds`, …) are declared before `/:productSlug` and win over a product
 * of that slug.
 */
export function storefrontPublicRouter(deps: RouteDeps) {
  const storefront = deps.services.publicStorefront;
  return new ApiRouter('/v1/storefront/public', 'Public storefront', deps)
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
      path: '/:merchantSlug/:productSlug',
      summary: 'A published product with its variants, files (digital), inventory state and cross-sell list',
      access: 'storefront',
      params: ProductPageParams,
      response: ProductPage,
      cacheSeconds: CACHE_SECONDS,
      handler: async ({ params, auth }) => ({ data: await storefront.product(params.merchantSlug, params.productSlug, auth) }),
    }).router;
}
