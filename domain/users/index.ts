/** The users area's entry: what routers, activities, the worker and other areas use of it. */
export { verifyPassword } from './passwords';
export { attachOwner, createUserService, findOwner, findUserByEmail, findUserEmail, normaliseEmail } from './service';
export type { CreatedUser } from './service';
export { createDashboardSessionService } from './sessions';
export type { DashboardIdentity, DashboardSessionService } from './sessions';
