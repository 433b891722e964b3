import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities';

const { purgeExpiredRecords } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 5 },
});

/** Run by the maintenance schedule: drops idempotency records past 24 hours and expired rate-limit counters. */
export async function maintenancePurge(): Promise<{ idempotencyKeys: number; rateLimits: number }> {
  return purgeExpiredRecords();
}
