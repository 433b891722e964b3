import { mkdtempSync } from 'node:fs';
import { mkdir, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Event, IdempotencyKey, WebhookDeliveryAttempt } from '../../db/models';
import { newId } from '../../lib/ids';
import { createStorage } from '../../lib/storage';
import { ensureMaintenancePurgeSchedule } from '../../worker/schedules';
import { SCHEDULE_IDS, workflowIds } from '../../workflows/messages';
import { insertEvent } from '../fixtures/events';
import { insertDeliveryAttempt, insertWebhookEndpoint } from '../fixtures/webhooks';
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
    const { row: endpoint } = await insertWebhookEndpoint(ws);
    const attemptAt = async (at: Date) => (await insertDeliveryAttempt(endpoint, { scheduledAt: at, createdAt: at })).id;
    await attemptAt(days(31));
    const recentAttempt = await attemptAt(days(29));
    const eventAt = (createdAt: Date, publishedAt: Date | null) => insertEvent(ctx.sequelize, ws, { createdAt, publishedAt });
    await eventAt(days(31), days(31));
    const oldUnpublished = await eventAt(days(31), null);
    const recentPublished = await eventAt(days(29), days(29));

    // Storefront analytics events: kept 30 days.
    const [oldTrack, recentTrack] = [newId('sev'), newId('sev')];
    await ctx.sequelize.query(
      `INSERT INTO storefront_events (id, account_id, environment, event, created_at) VALUES (:oldTrack, :a, 'live', 'page_view', :old), (:recentTrack, :a, 'live', 'page_view', :recent)`,
      { replacements: { oldTrack, recentTrack, a: ws.accountId, old: days(31), recent: days(29) } },
    );

    // Workflow-start outbox rows: started ones kept 30 days; one never started is kept however old.
    const [oldStarted, oldPending, recentStarted] = [newId('wfs'), newId('wfs'), newId('wfs')];
    for (const [id, createdAt, startedAt] of [[oldStarted, days(31), days(31)], [oldPending, days(31), null], [recentStarted, days(29), days(29)]] as const) {
      await ctx.sequelize.query(
        `INSERT INTO workflow_starts (id, account_id, environment, workflow_type, workflow_id, args, created_at, started_at)
         VALUES (:id, :accountId, 'test', 'fileCleanup', :id, '{}', :createdAt, :startedAt)`,
        { replacements: { id, accountId: ws.accountId, createdAt, startedAt } },
      );
    }

    // Partner webhook signatures: remembered a day (replays past the 5-minute tolerance fail on their timestamp).
    const [oldReceipt, recentReceipt] = [`sig-old-${newId('wfs')}`, `sig-recent-${newId('wfs')}`];
    await ctx.sequelize.query(
      `INSERT INTO shipping_webhook_receipts (signature, event_id, signed_at, received_at) VALUES (:oldReceipt, 'e1', :old, :old), (:recentReceipt, 'e2', :recent, :recent)`,
      { replacements: { oldReceipt, recentReceipt, old: new Date(Date.now() - 25 * 3600_000), recent: new Date(Date.now() - 23 * 3600_000) } },
    );

    // Upload data left by an API process killed mid-stream: swept once older than two upload deadlines.
    const partial = path.join(STORAGE, '.partial');
    await mkdir(partial, { recursive: true });
    await writeFile(path.join(partial, 'abandoned'), 'half');
    await writeFile(path.join(partial, 'recent'), 'half');
    await utimes(path.join(partial, 'abandoned'), new Date(Date.now() - 2.5 * 3600_000), new Date(Date.now() - 2.5 * 3600_000));
    await utimes(path.join(partial, 'recent'), new Date(Date.now() - 1.5 * 3600_000), new Date(Date.now() - 1.5 * 3600_000));

    await ensureMaintenancePurgeSchedule(ctx.temporal, worker.taskQueue);
    await ensureMaintenancePurgeSchedule(ctx.temporal, worker.taskQueue); // idempotent at every worker start
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
      storefrontEvents: expect.any(Number),
      workflowStarts: expect.any(Number),
      shippingWebhookReceipts: expect.any(Number),
      abandonedUploads: 1,
    });
    expect(await readdir(partial)).toEqual(['recent']);
    const [receipts] = await ctx.sequelize.query(`SELECT signature FROM shipping_webhook_receipts WHERE signature IN (:oldReceipt, :recentReceipt)`, {
      replacements: { oldReceipt, recentReceipt },
    });
    expect(receipts).toEqual([{ signature: recentReceipt }]);

    const keys = (await IdempotencyKey.findAll({ where: { accountId: ws.accountId } })).map((k) => k.key);
    expect(keys).toEqual(['recent']);
    const [limits] = await ctx.sequelize.query(`SELECT key FROM rate_limits WHERE key LIKE 'test:%' ORDER BY key`);
    expect(limits).toEqual([{ key: 'test:live' }]);
    expect((await WebhookDeliveryAttempt.findAll({ where: { endpointId: endpoint.id } })).map((a) => a.id)).toEqual([recentAttempt]);
    const events = (await Event.findAll({ where: { accountId: ws.accountId }, order: [['id', 'ASC']] })).map((e) => e.id);
    expect(events).toEqual([oldUnpublished, recentPublished]);
    const [tracked] = await ctx.sequelize.query('SELECT id FROM storefront_events WHERE account_id = :a', { replacements: { a: ws.accountId } });
    expect(tracked).toEqual([{ id: recentTrack }]);
    const [starts] = await ctx.sequelize.query(`SELECT id FROM workflow_starts WHERE account_id = :accountId ORDER BY id`, { replacements: { accountId: ws.accountId } });
    expect(starts).toEqual([{ id: oldPending }, { id: recentStarted }]);

    if (process.env.RECORD_HISTORIES === '1') {
      const history = await handle.fetchHistory();
      await writeFile(path.join(__dirname, '../replay/histories/maintenance-purge.json'), JSON.stringify(history, null, 2));
    }
    await schedule.delete();
  });
});
