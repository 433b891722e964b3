/** The workspaces area's entry: what routers, activities, the worker and other areas use of it. */
export { createWorkspaceService } from './service';
export type { CreatedWorkspace } from './service';
