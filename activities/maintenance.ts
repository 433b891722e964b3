import type { Sequelize } from 'sequelize';
import { purgeExpiredRecords, type PurgeResult } from '../db/retention';
import { MAX_UPLOAD_DURATION_MS, type BlobStorage } from '../lib/storage';

export interface MaintenanceResult extends PurgeResult {
  /** Temporary files of uploads whose API process died mid-stream. */
  abandonedUploads: number;
}

export function createMaintenanceActivities({ sequelize, storage }: { sequelize: Sequelize; storage: BlobStorage }) {
  return {
    /** Idempotent: deleting what is already gone deletes nothing. */
    async purgeExpiredRecords(): Promise<MaintenanceResult> {
      const records = await purgeExpiredRecords(sequelize);
      const abandonedUploads = await storage.sweepAbandonedWrites(new Date(Date.now() - 2 * MAX_UPLOAD_DURATION_MS));
      return { ...records, abandonedUploads };
    },
  };
}
