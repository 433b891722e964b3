/** The email area's entry: what routers, activities, the worker and other areas use of it. */
export { createEmailQueue, recordEmailDelivery } from './queue';
