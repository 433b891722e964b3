import { createApiKeyService } from './api-keys/service';
import { createBillingSettingsService } from './billing/settings';
import { createBlogPostService } from './blog/service';
import { createCheckoutSessionService } from './checkout/service';
import { createHostedCheckoutService } from './checkout/hosted-page';
import { createStorefrontCheckoutService } from './checkout/storefront';
import { certifications } from './credibility/certifications';
import { portfolio } from './credibility/portfolio';
import { createCredibilityService } from './credibility/service';
import { testimonials } from './credibility/testimonials';
import { createOrderPageService } from './deliveries/order-view';
import { createDeliveryService } from './deliveries/service';
import { createCustomerService } from './customers/service';
import { createDiscountCodeService } from './discounts/service';
import { createStockService } from './inventory/service';
import { createVariantService } from './inventory/variants';
import { createWarehouseService } from './inventory/warehouses';
import { createInvoiceService } from './invoices/service';
import { createPublicLicenseService } from './licenses/public';
import { createLicenseService } from './licenses/service';
import { createManualCheckoutService } from './manual-orders/checkout';
import { createManualOrderService } from './manual-orders/service';
import { createOrderTrackerService } from './manual-orders/tracker';
import { createModuleService } from './modules/service';
import { createProviderCallbackService } from './payment-provider/callbacks';
import { createPlanService } from './plans/service';
import { createPayoutService } from './payouts/service';
import { createSubscriptionService } from './subscriptions/service';
import { createTestClockService } from './test-clocks/service';
import { createAiGenerationService } from './products/ai-generation';
import { createProductFileService } from './products/files';
import { createProductService } from './products/service';
import type { ServiceDeps } from './service-deps';
import { createShippingService } from './shipping/service';
import { createReferralLinkService } from './referrals/service';
import { createStorefrontActivityService } from './storefront/activity';
import { createPublicBlogService } from './storefront/blog';
import { createChannelFeedService } from './storefront/feeds';
import { createPublicStorefrontService } from './storefront/public';
import { createStorefrontSettingsService } from './storefront/settings';
import { createSitemapService } from './storefront/sitemap';
import { createWebhookEndpointService } from './webhooks/endpoints';
import { createDashboardSessionService } from './users/sessions';
import { createUserService } from './users/service';
import { createWorkspaceService } from './workspaces/service';

/** Every domain service, built once per process from one set of dependencies. */
export function createServices(deps: ServiceDeps) {
  const webhookEndpoints = createWebhookEndpointService(deps);
  const apiKeys = createApiKeyService(deps);
  return {
    apiKeys,
    workspaces: createWorkspaceService(deps),
    users: createUserService(deps),
    dashboardSessions: createDashboardSessionService(deps),
    // Module checks reconcile the system-managed webhook endpoints; switches drop the cached workspace flags.
    modules: createModuleService({
      onCheck: (accountId, flags) => webhookEndpoints.syncSystemEndpoints(accountId, flags),
      onChange: (accountId) => apiKeys.cache.dropAccount(accountId),
    }),
    webhookEndpoints,
    products: createProductService(deps, createAiGenerationService(deps)),
    productFiles: createProductFileService(deps),
    storefrontSettings: createStorefrontSettingsService(deps),
    publicStorefront: createPublicStorefrontService(deps),
    storefrontActivity: createStorefrontActivityService(deps),
    storefrontCheckout: createStorefrontCheckoutService(deps),
    referralLinks: createReferralLinkService(deps),
    portfolio: createCredibilityService(deps, portfolio),
    testimonials: createCredibilityService(deps, testimonials),
    certifications: createCredibilityService(deps, certifications),
    discountCodes: createDiscountCodeService(deps),
    publicBlog: createPublicBlogService(deps),
    sitemap: createSitemapService(deps),
    channelFeeds: createChannelFeedService(deps),
    blogPosts: createBlogPostService(),
    licenses: createLicenseService(deps),
    publicLicenses: createPublicLicenseService(deps),
    deliveries: createDeliveryService(deps),
    orderPage: createOrderPageService(deps),
    checkoutSessions: createCheckoutSessionService(deps),
    customers: createCustomerService(deps),
    plans: createPlanService(deps),
    hostedCheckout: createHostedCheckoutService(deps),
    shipping: createShippingService(deps),
    warehouses: createWarehouseService(deps),
    variants: createVariantService(deps),
    stock: createStockService(deps),
    manualOrders: createManualOrderService(deps),
    manualCheckout: createManualCheckoutService(deps),
    orderTracker: createOrderTrackerService(deps),
    invoices: createInvoiceService(deps),
    billingSettings: createBillingSettingsService(deps),
    payouts: createPayoutService(deps),
    subscriptions: createSubscriptionService(deps),
    testClocks: createTestClockService(deps),
    providerCallbacks: createProviderCallbackService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
