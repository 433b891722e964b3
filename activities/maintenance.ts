import type { Sequelize } from 'sequelize';
import { purgeExpiredRecords } from '../db/retention';

export function createMaintenanceActivities({ sequelize }: { sequelize: Sequelize }) {
  return {
    /** Idempotent: deleting what is already gone deletes nothing. */
    async purgeExpiredRecords() {
      return purgeExpiredRecords(sequelize);
    },
  };
}
