import type { Sequelize } from 'sequelize';
import type { Config } from '../lib/config';
import type { CryptoBox } from '../lib/crypto-box';
import type { Logger } from '../lib/logger';
import { createMaintenanceActivities } from './maintenance';

/** What activities may touch. The worker builds these once (worker/deps.ts); tests hand in real ones. */
export interface ActivityDeps {
  sequelize: Sequelize;
  logger: Logger;
  config: Config;
  box: CryptoBox;
}

/** Every activity, built from real dependencies handed in by the worker (or by a test). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createMaintenanceActivities(deps),
  };
}
