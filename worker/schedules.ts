import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { SCHEDULE_IDS, workflowIds } from '../workflows/messages';

/** Creates the recurring schedules if they do not exist yet; safe to run at every worker start. */
export async function ensureSchedules(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: SCHEDULE_IDS.maintenancePurge,
      spec: { intervals: [{ every: '1 hour' }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
      action: {
        type: 'startWorkflow',
        workflowType: 'maintenancePurge',
        workflowId: workflowIds.maintenancePurge(),
        taskQueue,
      },
      memo: { purpose: 'Purges idempotency records older than 24 hours and expired rate-limit counters' },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
