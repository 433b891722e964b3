/** The payment-provider area's entry: what routers, activities, the worker and other areas use of it. */
export { createProviderCallbackService } from './callbacks';
export type { ProviderCallbackService } from './callbacks';
