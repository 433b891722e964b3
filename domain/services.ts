import { createApiKeyService } from './api-keys';
import { createBillingSettingsService } from './billing';
import { createBlogPostService } from './blog';
import { checkoutReceipt, createCheckoutSessionService, createHostedCheckoutService, createOrderPageService, createStorefrontCheckoutService } from './checkout';
import { certifications, createCredibilityService, portfolio, testimonials } from './credibility';
import { createDeliveryService } from './deliveries';
import { createCustomerService } from './customers';
import { createDiscountCodeService } from './discounts';
import { createStockService, createVariantService, createWarehouseService } from './inventory';
import { createInvoiceService, settleInvoiceOfCompletedSession } from './invoices';
import { createLicenseService, createPublicLicenseService } from './licenses';
import { createManualCheckoutService, createManualOrderService, createOrderTrackerService, manualOrderReceipt } from './manual-orders';
import { createModuleService } from './modules';
import { createProviderCallbackService } from './payment-provider';
import { createPlanService } from './plans';
import { createPayoutService } from './payouts';
import { createSubscriptionService } from './subscriptions';
import { createTestClockService } from './test-clocks';
import { createAiGenerationService, createProductFileService, createProductService } from './products';
import type { ServiceDeps } from './service-deps';
import { createShippingService } from './shipping';
import { createReferralLinkService } from './referrals';
import { createChannelFeedService, createPublicBlogService, createPublicStorefrontService, createSitemapService, createStorefrontActivityService, createStorefrontSettingsService } from './storefront';
import { createWebhookEndpointService } from './webhooks';
import { createDashboardSessionService, createUserService } from './users';
import { createWorkspaceService } from './workspaces';

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
    // A resent delivery e-mail carries the receipt of what sold it: those areas sit above deliveries, so they are handed in.
    deliveries: createDeliveryService(deps, { checkout: checkoutReceipt, manualOrder: manualOrderReceipt }),
    orderPage: createOrderPageService(deps),
    // A confirmed session opened for an invoice pays it: checkout sits below invoices, so the settler is handed in.
    checkoutSessions: createCheckoutSessionService(deps, settleInvoiceOfCompletedSession),
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
