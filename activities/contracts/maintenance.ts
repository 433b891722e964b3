import type { PurgeResult } from '../../db/retention';

/**
 * What one maintenance purge removed: expired rows by kind (db/retention.ts, a type import the workflow bundle never
 * loads), and the temporary files of uploads whose API process died mid-stream.
 */
export type MaintenanceResult = PurgeResult & { abandonedUploads: number };

/** The maintenance-purge workflow's activity (activities/maintenance.ts). */
export type MaintenanceActivities = {
  purgeExpiredRecords(): Promise<MaintenanceResult>;
};
