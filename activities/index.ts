import type { Sequelize } from 'sequelize';
import type { Logger } from '../lib/logger';
import { createMaintenanceActivities } from './maintenance';

export interface ActivityDeps {
  sequelize: Sequelize;
  logger: Logger;
}

/** Every activity, built from real dependencies handed in by the worker (or by a test). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createMaintenanceActivities(deps),
  };
}
