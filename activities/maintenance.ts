import type { Sequelize } from 'sequelize';
import { purgeExpiredRecords, type PurgeResult } from '../db/retention';
import { MAX_UPLOAD_DURATION_MS, type BlobStorage } from '../lib/storage';
import type { MaintenanceActivities, MaintenanceResult } from './contracts/maintenance';

// The contract spells the purge's counts out (it imports nothing of db/): a count added to or dropped from
// PurgeResult without the contract is a compile error here.
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
const _purgeCountsInContract: SameKeys<PurgeResult, Omit<MaintenanceResult, 'abandonedUploads'>> = true;

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
