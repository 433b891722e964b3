/** The customers area's entry: what routers, activities, the worker and other areas use of it. */
export type { CustomerDto } from './dto';
export { CreateCustomerBody, UpdateCustomerBody } from './inputs';
export { createCustomerService } from './service';
