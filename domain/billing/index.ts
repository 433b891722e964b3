/** The billing area's entry: what routers, activities, the worker and other areas use of it. */
export { DUNNING_FINAL_ACTIONS, UpdateBillingSettingsBody, createBillingSettingsService } from './settings';
