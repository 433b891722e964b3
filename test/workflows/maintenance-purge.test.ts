import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { IdempotencyKey } from '../../db/models';
import { newId } from '../../lib/ids';
import { ensureSchedules } from '../../worker/schedules';
import { SCHEDULE_IDS, workflowIds } from '../../workflows/messages';
import { createTestContext, type TestContext } from '../helpers/context';
import { startTestWorker, type RunningWorker } from '../helpers/worker';

let ctx: TestContext;
let worker: RunningWorker;

beforeAll(async () => {
  ctx = await createTestContext();
  worker = await startTestWorker(ctx.sequelize, `maintenance-${Date.now()}`);
});
afterAll(async () => {
  await worker?.stop();
  await ctx.close();
});

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('maintenance purge schedule', () => {
  it('is created once, runs the purge workflow, and removes only expired idempotency records and rate-limit rows', async () => {
    const ws = await ctx.createWorkspace();
    const base = { accountId: ws.accountId, environment: 'test' as const, requestMethod: 'POST', requestPath: '/x', requestHash: 'h', state: 'completed' as const };
    await IdempotencyKey.bulkCreate([
      { ...base, id: newId('idem'), key: 'old', createdAt: new Date(Date.now() - 25 * 3600_000) },
      { ...base, id: newId('idem'), key: 'recent', createdAt: new Date(Date.now() - 23 * 3600_000) },
    ]);
    await ctx.sequelize.query(`INSERT INTO rate_limits (key, points, expire) VALUES ('test:expired', 1, :past), ('test:live', 1, :future)`, {
      replacements: { past: Date.now() - 1000, future: Date.now() + 60_000 },
    });

    await ensureSchedules(ctx.temporal, worker.taskQueue);
    await ensureSchedules(ctx.temporal, worker.taskQueue); // idempotent at every worker start
    const schedule = ctx.temporal.schedule.getHandle(SCHEDULE_IDS.maintenancePurge);
    const description = await schedule.describe();
    expect(description.action).toMatchObject({ workflowType: 'maintenancePurge', taskQueue: worker.taskQueue });

    await schedule.trigger();
    const run = await waitFor(async () => {
      for await (const wf of ctx.temporal.workflow.list({ query: `WorkflowType = 'maintenancePurge' AND ExecutionStatus = 'Completed'` })) {
        return wf;
      }
      return undefined;
    });
    expect(run.workflowId.startsWith(workflowIds.maintenancePurge())).toBe(true);
    const handle = ctx.temporal.workflow.getHandle(run.workflowId, run.runId);
    expect(await handle.result()).toEqual({ idempotencyKeys: expect.any(Number), rateLimits: expect.any(Number) });

    const keys = (await IdempotencyKey.findAll({ where: { accountId: ws.accountId } })).map((k) => k.key);
    expect(keys).toEqual(['recent']);
    const [limits] = await ctx.sequelize.query(`SELECT key FROM rate_limits WHERE key LIKE 'test:%' ORDER BY key`);
    expect(limits).toEqual([{ key: 'test:live' }]);

    if (process.env.RECORD_HISTORIES === '1') {
      const history = await handle.fetchHistory();
      await writeFile(path.join(__dirname, '../replay/histories/maintenance-purge.json'), JSON.stringify(history, null, 2));
    }
    await schedule.delete();
  });
});
