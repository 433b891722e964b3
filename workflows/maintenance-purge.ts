import { proxyActivities } from '@temporalio/workflow';
import type { MaintenanceActivities, MaintenanceResult } from '../activities/contracts/maintenance';

const { purgeExpiredRecords } = proxyActivities<MaintenanceActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 5 },
});

/** Run by the maintenance schedule: expired records (db/retention.ts) and abandoned upload data. */
export async function maintenancePurge(): Promise<MaintenanceResult> {
  return purgeExpiredRecords();
}
