import type { Router } from 'express';
import { certifications, portfolio, testimonials } from '../../domain/credibility';
import { apiKeysRouter } from './api-keys/router';
import { billingSettingsRouter } from './billing/router';
import { blogPostsRouter } from './blog/router';
import { checkoutSessionsRouter } from './checkout/router';
import { credibilityRouter } from './credibility/router';
import { deliveriesRouter } from './deliveries/router';
import { customersRouter } from './customers/router';
import { discountCodesRouter } from './discounts/router';
import { inventoryRouter } from './inventory/router';
import { billingInvoicesRouter, invoicesRouter } from './invoices/router';
import { licensesRouter } from './licenses/router';
import { manualOrdersRouter } from './manual-orders/router';
import { modulesRouter } from './modules/router';
import { plansRouter } from './plans/router';
import { paymentProviderRouter } from './payment-provider/router';
import { payoutsRouter } from './payouts/router';
import { productsRouter } from './products/router';
import { referralLinksRouter } from './referrals/router';
import { storefrontOrdersRouter } from './storefront-orders/router';
import { shippingRouter } from './shipping/router';
import { storefrontPublicRouter } from './storefront-public/router';
import { storefrontSettingsRouter } from './storefront-settings/router';
import { subscriptionsRouter } from './subscriptions/router';
import { testClocksRouter } from './test-clocks/router';
import { webhookEndpointsRouter } from './webhooks/router';
import type { RouteDeps } from './route-deps';

/** Every resource's router, mounted under /api in this order; a new resource adds one line here. */
export const ROUTES: ((deps: RouteDeps) => Router)[] = [
  apiKeysRouter,
  modulesRouter,
  webhookEndpointsRouter,
  productsRouter,
  storefrontSettingsRouter,
  // Before the public storefront: its download path would otherwise match `/:merchantSlug/:productSlug`.
  deliveriesRouter,
  storefrontPublicRouter,
  storefrontOrdersRouter,
  referralLinksRouter,
  (deps) => credibilityRouter(deps, portfolio, deps.services.portfolio),
  (deps) => credibilityRouter(deps, testimonials, deps.services.testimonials),
  (deps) => credibilityRouter(deps, certifications, deps.services.certifications),
  discountCodesRouter,
  blogPostsRouter,
  licensesRouter,
  checkoutSessionsRouter,
  customersRouter,
  plansRouter,
  inventoryRouter,
  manualOrdersRouter,
  invoicesRouter,
  billingInvoicesRouter,
  billingSettingsRouter,
  payoutsRouter,
  subscriptionsRouter,
  testClocksRouter,
  shippingRouter,
  paymentProviderRouter,
];
