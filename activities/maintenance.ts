import type { Sequelize } from 'sequelize';
import { purgeExpiredRecords } from '../db/retention';
import { MAX_UPLOAD_DURATION_MS, type BlobStorage } from '../lib/storage';
import type { MaintenanceActivities, MaintenanceResult } from './contracts/maintenance';

export function createMaintenanceActivities({ sequelize, storage }: { sequelize: Sequelize; storage: BlobStorage }): MaintenanceActivities {
  return {
    /** Idempotent: deleting what is already gone deletes nothing. */
    async purgeExpiredRecords(): Promise<MaintenanceResult> {
      const records = await purgeExpiredRecords(sequelize);
      const abandonedUploads = await storage.sweepAbandonedWrites(new Date(Date.now() - 2 * MAX_UPLOAD_DURATION_MS));
      return { ...records, abandonedUploads };
    },
  };
}
