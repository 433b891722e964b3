import { createApiKeyService } from './api-keys/service';
import { createBlogPostService } from './blog/service';
import { certifications } from './credibility/certifications';
import { portfolio } from './credibility/portfolio';
import { createCredibilityService } from './credibility/service';
import { testimonials } from './credibility/testimonials';
import { createModuleService } from './modules/service';
import { createAiGenerationService } from './products/ai-generation';
import { createProductFileService } from './products/files';
import { createProductService } from './products/service';
import type { ServiceDeps } from './service-deps';
import { createPublicBlogService } from './storefront/blog';
import { createChannelFeedService } from './storefront/feeds';
import { createPublicStorefrontService } from './storefront/public';
import { createStorefrontSettingsService } from './storefront/settings';
import { createSitemapService } from './storefront/sitemap';
import { createWebhookEndpointService } from './webhooks/endpoints';
import { createWorkspaceService } from './workspaces/service';

/** Every domain service, built once per process from one set of dependencies. */
export function createServices(deps: ServiceDeps) {
  const webhookEndpoints = createWebhookEndpointService(deps);
  return {
    apiKeys: createApiKeyService(deps),
    workspaces: createWorkspaceService(deps),
    // Module checks reconcile the system-managed webhook endpoints.
    modules: createModuleService({ onCheck: (accountId, flags) => webhookEndpoints.syncSystemEndpoints(accountId, flags) }),
    webhookEndpoints,
    products: createProductService(deps, createAiGenerationService(deps)),
    productFiles: createProductFileService(deps),
    storefrontSettings: createStorefrontSettingsService(deps),
    publicStorefront: createPublicStorefrontService(deps),
    publicBlog: createPublicBlogService(deps),
    sitemap: createSitemapService(deps),
    channelFeeds: createChannelFeedService(deps),
    portfolio: createCredibilityService(deps, portfolio),
    testimonials: createCredibilityService(deps, testimonials),
    certifications: createCredibilityService(deps, certifications),
    blogPosts: createBlogPostService(),
  };
}

export type Services = ReturnType<typeof createServices>;
