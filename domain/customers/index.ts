/** The customers area's entry: what routers, activities, the worker and other areas use of it. */
export { CreateCustomerBody, UpdateCustomerBody } from './inputs';
export { createCustomerService } from './service';
