import { mkdtempSync } from 'node:fs';
import { mkdir, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Event, IdempotencyKey, WebhookDeliveryAttempt, WebhookEndpoint } from '../../db/models';
import { newId } from '../../lib/ids';
import { createStorage } from '../../lib/storage';
import { ensureSchedules } from '../../worker/schedules';
import { SCHEDULE_IDS, workflowIds } from '../../workflows/messages';
import { createTestContext, type TestContext } from '../helpers/context';
import { waitFor } from '../helpers/wait';
import { startTestWorker, type RunningWorker } from '../helpers/worker';

let ctx: TestContext;
let worker: RunningWorker;
const STORAGE = mkdtempSync(path.join(tmpdir(), 'maintenance-'));

beforeAll(async () => {
  ctx = await createTestContext();
  worker = await startTestWorker(ctx.sequelize, `maintenance-${Date.now()}`, { storage: createStorage({ FILE_STORAGE_DIR: STORAGE }) });
});
afterAll(async () => {
  await worker?.stop();
  await ctx.close();
  await rm(STORAGE, { recursive: true, force: true });
});

describe('maintenance purge schedule', () => {
  it('is created once, runs the purge workflow, and removes only what has expired', async () => {
    const ws = await ctx.createWorkspace();
    const base = { accountId: ws.accountId, environment: 'test' as const, requestMethod: 'POST', requestPath: '/x', requestHash: 'h', state: 'completed' as const };
    await IdempotencyKey.bulkCreate([
      { ...base, id: newId('idem'), key: 'old', createdAt: new Date(Date.now() - 25 * 3600_000) },
      { ...base, id: newId('idem'), key: 'recent', createdAt: new Date(Date.now() - 23 * 3600_000) },
    ]);
    await ctx.sequelize.query(`INSERT INTO rate_limits (key, points, expire) VALUES ('test:expired', 1, :past), ('test:live', 1, :future)`, {
      replacements: { past: Date.now() - 1000, future: Date.now() + 60_000 },
    });

    // Delivery log and fanned-out events: kept 30 days; an event never fanned out is kept however old.
    const days = (n: number) => new Date(Date.now() - n * 86_400_000);
    const endpoint = await WebhookEndpoint.create({
      id: newId('whe'),
      accountId: ws.accountId,
      environment: 'test',
      url: 'https://receiver.example/hooks',
      events: [],
      description: null,
      active: true,
      secretSealed: 'sealed',
    });
    const attempt = (id: string, createdAt: Date) => ({
      id,
      accountId: ws.accountId,
      environment: 'test' as const,
      endpointId: endpoint.id,
      eventId: newId('evt'),
      eventType: 'checkout.completed',
      attempt: 1,
      deliveryId: randomUUID(),
      attemptKey: randomUUID(),
      url: endpoint.url,
      status: 'succeeded' as const,
      durationMs: 5,
      scheduledAt: createdAt,
      createdAt,
    });
    const [oldAttempt, recentAttempt] = [newId('wha'), newId('wha')];
    await WebhookDeliveryAttempt.bulkCreate([attempt(oldAttempt, days(31)), attempt(recentAttempt, days(29))]);
    const event = (id: string, createdAt: Date, publishedAt: Date | null) => ({ id, accountId: ws.accountId, environment: 'test' as const, type: 'checkout.completed', data: {}, createdAt, publishedAt });
    const [oldPublished, oldUnpublished, recentPublished] = [newId('evt'), newId('evt'), newId('evt')];
    await Event.bulkCreate([event(oldPublished, days(31), days(31)), event(oldUnpublished, days(31), null), event(recentPublished, days(29), days(29))]);

    // Workflow-start outbox rows: started ones kept 30 days; one never started is kept however old.
    const [oldStarted, oldPending, recentStarted] = [newId('wfs'), newId('wfs'), newId('wfs')];
    for (const [id, createdAt, startedAt] of [[oldStarted, days(31), days(31)], [oldPending, days(31), null], [recentStarted, days(29), days(29)]] as const) {
      await ctx.sequelize.query(
        `INSERT INTO workflow_starts (id, account_id, environment, workflow_type, workflow_id, args, created_at, started_at)
         VALUES (:id, :accountId, 'test', 'fileCleanup', :id, '{}', :createdAt, :startedAt)`,
        { replacements: { id, accountId: ws.accountId, createdAt, startedAt } },
      );
    }

    // Upload data left by an API process killed mid-stream: swept once older than two upload deadlines.
    const partial = path.join(STORAGE, '.partial');
    await mkdir(partial, { recursive: true });
    await writeFile(path.join(partial, 'abandoned'), 'half');
    await writeFile(path.join(partial, 'recent'), 'half');
    await utimes(path.join(partial, 'abandoned'), new Date(Date.now() - 2.5 * 3600_000), new Date(Date.now() - 2.5 * 3600_000));
    await utimes(path.join(partial, 'recent'), new Date(Date.now() - 1.5 * 3600_000), new Date(Date.now() - 1.5 * 3600_000));

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
    expect(await handle.result()).toEqual({
      idempotencyKeys: expect.any(Number),
      rateLimits: expect.any(Number),
      deliveryAttempts: expect.any(Number),
      events: expect.any(Number),
      workflowStarts: expect.any(Number),
      abandonedUploads: 1,
    });
    expect(await readdir(partial)).toEqual(['recent']);

    const keys = (await IdempotencyKey.findAll({ where: { accountId: ws.accountId } })).map((k) => k.key);
    expect(keys).toEqual(['recent']);
    const [limits] = await ctx.sequelize.query(`SELECT key FROM rate_limits WHERE key LIKE 'test:%' ORDER BY key`);
    expect(limits).toEqual([{ key: 'test:live' }]);
    expect((await WebhookDeliveryAttempt.findAll({ where: { endpointId: endpoint.id } })).map((a) => a.id)).toEqual([recentAttempt]);
    const events = (await Event.findAll({ where: { accountId: ws.accountId }, order: [['id', 'ASC']] })).map((e) => e.id);
    expect(events).toEqual([oldUnpublished, recentPublished]);
    const [starts] = await ctx.sequelize.query(`SELECT id FROM workflow_starts WHERE account_id = :accountId ORDER BY id`, { replacements: { accountId: ws.accountId } });
    expect(starts).toEqual([{ id: oldPending }, { id: recentStarted }]);

    if (process.env.RECORD_HISTORIES === '1') {
      const history = await handle.fetchHistory();
      await writeFile(path.join(__dirname, '../replay/histories/maintenance-purge.json'), JSON.stringify(history, null, 2));
    }
    await schedule.delete();
  });
});
