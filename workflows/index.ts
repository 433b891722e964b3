// The only workflowsPath entry: one file per workflow, re-exported here.
export { maintenancePurge } from './maintenance-purge';
