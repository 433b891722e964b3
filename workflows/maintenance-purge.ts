import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { PurgeResult } from '../db/retention';

const { purgeExpiredRecords } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 5 },
});

/** Run by the maintenance schedule: see purgeExpiredRecords (db/retention.ts) for what goes. */
export async function maintenancePurge(): Promise<PurgeResult> {
  return purgeExpiredRecords();
}
