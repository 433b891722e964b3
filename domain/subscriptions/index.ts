/** The subscriptions area's entry: what routers, activities, the worker and other areas use of it. */
export { cancelSubscription } from './billing';
export type { SubscriptionDto } from './dto';
export { CreateSubscriptionBody, UpdateSubscriptionBody } from './inputs';
export { createSubscriptionLifecycle } from './lifecycle';
export { createSubscriptionService } from './service';
