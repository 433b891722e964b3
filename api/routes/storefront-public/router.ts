import { z } from 'zod';
import { FEED_CHANNELS } from '../../../domain/storefront';
import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import {
  BlogIndex,
  BlogPostPage,
  BlogPostParams,
  BuyNowBody,
  CaptureReferralBody,
  CartCheckoutBody,
  CheckoutCreated,
  DiscountQuote,
  Landing,
  Merchant,
  MerchantParams,
  OrderPageParams,
  Pixels,
  ProductPage,
  ProductPageParams,
  PublicDiscountCode,
  PublicOrder,
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
export const CACHE_SECONDS = 60;

/**
 * The public storefront: buyers' reads and writes (tracking, discount quotes, checkout creates), no key needed
 * (a key of the merchant's own workspace may be sent to act on its environment). `:merchantSlug` is the
 * workspace slug or one of its custom domains. Fixed segments (`pixels`, `blog`, `sitemap`, `feeds`, …) are
 * declared before `/:productSlug` and win over a product of that slug; the global `resolve/…` and `order/…`
 * come before every `/:merchantSlug/…` route (those words are reserved as workspace slugs). The XML documents (RSS, sitemap, feeds)
 * are raw bodies with the same caching.
 */
export function storefrontPublicRouter(deps: RouteDeps) {
  const { publicStorefront: storefront, referralLinks, storefrontActivity, publicBlog: blog, sitemap, channelFeeds, storefrontCheckout, orderPage } = deps.services;
  const unsubscribe = {
    summary: 'Unsubscribe the e-mail named by a signed token from abandoned-cart e-mails (the link in such an e-mail)',
    access: 'public' as const,
    query: UnsubscribeQuery,
    response: Unsubscribed,
  };
  const router = new ApiRouter('/v1/storefront/public', 'Public storefront', deps)
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
    // Before every `/:merchantSlug/…` route: `order/<id>` is always the order page, never a store slugged `order`.
    .add({
      method: 'get',
      path: '/order/:deliveryId',
      summary:
        'The buyer’s order page (no key: the `del_` id is the credential): product, amounts, status, a download link signed anew, the licence key, the shipment; never cached',
      access: 'public',
      params: OrderPageParams,
      response: PublicOrder,
      noStore: true,
      handler: async ({ params }) => ({ data: await orderPage.publicOrder(params.deliveryId) }),
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
    // POST only: the GET routes of the same shape (a product page, a blog post) never see these.
    .add({
      method: 'post',
      path: '/:merchantSlug/cart-checkout',
      summary: 'Cart checkout: a checkout session for several products, priced from the catalogue; redirect the buyer to hostedUrl',
      access: 'storefront',
      rateLimit: deps.rateLimits.perIpPerMerchant.checkoutCreate,
      params: MerchantParams,
      body: CartCheckoutBody,
      response: CheckoutCreated,
      status: 201,
      // With the fulfillment module on, a stock-tracked variant short of the quantity.
      errors: ['INSUFFICIENT_STOCK', 'PARTNER_UNAVAILABLE'],
      idempotencyScope: ({ params, auth }) => storefrontCheckout.tenantOf(params.merchantSlug, auth),
      handler: async ({ params, body, auth }) => ({ data: await storefrontCheckout.cart(params.merchantSlug, body, auth) }),
    })
    .add({
      method: 'post',
      path: '/:merchantSlug/:productSlug/checkout',
      summary: 'Buy-now checkout: a checkout session for one product, priced from the catalogue; redirect the buyer to hostedUrl',
      access: 'storefront',
      rateLimit: deps.rateLimits.perIpPerMerchant.checkoutCreate,
      params: ProductPageParams,
      body: BuyNowBody,
      response: CheckoutCreated,
      status: 201,
      // With the fulfillment module on, a stock-tracked variant short of the quantity.
      errors: ['INSUFFICIENT_STOCK', 'PARTNER_UNAVAILABLE'],
      idempotencyScope: ({ params, auth }) => storefrontCheckout.tenantOf(params.merchantSlug, auth),
      handler: async ({ params, body, auth }) => ({ data: await storefrontCheckout.buyNow(params.merchantSlug, params.productSlug, body, auth) }),
    })
    .add({
      method: 'get',
      path: '/:merchantSlug/blog',
      summary: 'Blog index: published posts, newest first, with excerpts and URLs',
      access: 'storefront',
      params: MerchantParams,
      response: BlogIndex,
      cacheSeconds: CACHE_SECONDS,
      handler: async ({ params, auth }) => ({ data: await blog.index(params.merchantSlug, auth) }),
    })
    // Before /blog/:postSlug, which would otherwise take it (a post slug cannot contain a dot anyway).
    .add({
      method: 'get',
      path: '/:merchantSlug/blog/rss.xml',
      summary: 'RSS 2.0 feed of the newest 50 published posts',
      access: 'storefront',
      params: MerchantParams,
      produces: 'application/rss+xml',
      cacheSeconds: CACHE_SECONDS,
      handler: async ({ params, auth }) => ({ raw: await blog.rss(params.merchantSlug, auth) }),
    })
    .add({
      method: 'get',
      path: '/:merchantSlug/blog/:postSlug',
      summary: 'A published blog post with its Markdown rendered to sanitised HTML',
      access: 'storefront',
      params: BlogPostParams,
      response: BlogPostPage,
      cacheSeconds: CACHE_SECONDS,
      handler: async ({ params, auth }) => ({ data: await blog.post(params.merchantSlug, params.postSlug, auth) }),
    })
    .add({
      method: 'get',
      path: '/:merchantSlug/sitemap',
      summary: 'sitemaps.org XML sitemap: landing page, blog, published products and posts with lastmod',
      access: 'storefront',
      params: MerchantParams,
      produces: 'application/xml',
      cacheSeconds: CACHE_SECONDS,
      handler: async ({ params, auth }) => ({ raw: await sitemap.sitemap(params.merchantSlug, auth) }),
    });
  for (const channel of FEED_CHANNELS) {
    router.add({
      method: 'get',
      path: `/:merchantSlug/feeds/${channel}.xml`,
      summary: `${channel} catalogue feed (RSS 2.0 with the g: namespace) of published products not excluded from feeds`,
      access: 'storefront',
      params: MerchantParams,
      produces: 'application/rss+xml',
      cacheSeconds: CACHE_SECONDS,
      handler: async ({ params, auth }) => ({ raw: await channelFeeds.feed(params.merchantSlug, channel, auth) }),
    });
  }
  return router.add({
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
