/** The storefront area's entry: what routers, activities, the worker and other areas use of it. */
export { TrackBody, UnsubscribeQuery } from './activity-inputs';
export { createStorefrontActivityService } from './activity';
export { createPublicBlogService } from './blog';
export { httpUrlOrNull, pageMerchantOf } from './branding';
export type { PageMerchant } from './branding';
export { FEED_CHANNELS, createChannelFeedService } from './feeds';
export { localPaymentMethods, manualInstructionsFor } from './manual-payment';
export type { ManualPaymentInstructions } from './manual-payment';
export { GLOBAL_STOREFRONT_SEGMENTS, resolveStorefront, slugOfCustomDomain } from './merchant';
export type { Merchant } from './merchant';
export { createPublicStorefrontService, crossSell, publicReadStatements, toMerchantDto, toPixelsDto, toPublicProduct } from './public';
export type { PublicProduct } from './public';
export { MAX_CUSTOM_DOMAINS, UpdateStorefrontSettingsBody } from './settings-inputs';
export { createStorefrontSettingsService } from './settings';
export { createSitemapService } from './sitemap';
