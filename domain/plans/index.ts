/** The plans area's entry: what routers, activities, the worker and other areas use of it. */
export { CreatePlanBody, CreatePlanPriceBody, UpdatePlanBody, UpdatePlanPriceBody } from './inputs';
export { createPlanService } from './service';
