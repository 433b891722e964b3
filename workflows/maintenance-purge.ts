import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { MaintenanceResult } from '../activities/maintenance';

const { purgeExpiredRecords } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 5 },
});

/** Run by the maintenance schedule: expired records (db/retention.ts) and abandoned upload data. */
export async function maintenancePurge(): Promise<MaintenanceResult> {
  return purgeExpiredRecords();
}
