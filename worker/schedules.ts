import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import { SCHEDULE_IDS, workflowIds } from '../workflows/messages';

/** Creates the recurring schedules if they do not exist yet; safe to run at every worker start. */
export async function ensureSchedules(client: Client, { taskQueue, settlementSweepIntervalMs }: { taskQueue: string; settlementSweepIntervalMs: number }): Promise<void> {
  await ensureMaintenancePurgeSchedule(client, taskQueue);
  await ensureSettlementSweepSchedule(client, { taskQueue, intervalMs: settlementSweepIntervalMs });
}

export async function ensureMaintenancePurgeSchedule(client: Client, taskQueue: string): Promise<void> {
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

/**
 * The settlement sweep every `intervalMs` (SETTLEMENT_SWEEP_INTERVAL). An existing schedule is brought to this
 * worker's interval and task queue, so a changed interval takes effect at the next worker start.
 */
export async function ensureSettlementSweepSchedule(client: Client, { taskQueue, intervalMs }: { taskQueue: string; intervalMs: number }): Promise<void> {
  // Skip: never two sweeps at once, and a missed run needs no catching up (the next one releases all that is due).
  const sweep: Pick<ScheduleOptions, 'spec' | 'policies' | 'action'> = {
    spec: { intervals: [{ every: intervalMs }] },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    action: { type: 'startWorkflow', workflowType: 'settlementSweep', workflowId: workflowIds.settlementSweep(), taskQueue },
  };
  try {
    await client.schedule.create({ scheduleId: SCHEDULE_IDS.settlementSweep, ...sweep, memo: { purpose: 'Moves every checkout credit past its settlement delay from pending to available' } });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(SCHEDULE_IDS.settlementSweep).update((previous) => ({ ...previous, ...sweep }));
  }
}
