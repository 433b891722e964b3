/** The blog area's entry: what routers, activities, the worker and other areas use of it. */
export { CreateBlogPostBody, UpdateBlogPostBody } from './inputs';
export { createBlogPostService } from './service';
