import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { WebhookDeliveryAttempt } from '../../db/models';
import { loadConfig } from '../../lib/config';
import { createWebhookAgent } from '../../lib/webhooks/send';
import { LIFECYCLE_STATE, workflowIds } from '../../workflows/messages';
import { expectError } from '../helpers/expect';
import { http, useTestApi, type TestApi } from '../helpers/context';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver';
import { waitFor } from '../helpers/wait';
import { startTestWorker, type RunningWorker } from '../helpers/worker';

const t = useTestApi();
const BASE = '/api/v1/payment/webhook-endpoints';
const HOUR_MS = 3_600_000;

let receiver: HttpsReceiver;
let worker: RunningWorker;
let api: TestApi;
let agent: ReturnType<typeof createWebhookAgent>;
/** Paths the receiver answers 503 for: a dead endpoint, until the test "fixes" it. */
const dead = new Set<string>();

beforeAll(async () => {
  const certs = await createTestCertificates();
  receiver = await startHttpsReceiver(certs);
  receiver.respond((req) => (dead.has(req.path) ? 503 : 200));
  agent = createWebhookAgent({ ca: certs.caCert });
  const taskQueue = `webhook-retry-${process.pid}-${Date.now()}`;
  // An hour between attempts: only a retry-now (or a reset) makes the second one within the test.
  const env = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', TEMPORAL_TASK_QUEUE: taskQueue, WEBHOOK_RETRY_SCHEDULE: '1h,1h' };
  api = await t.ctx.startApi(env);
  worker = await startTestWorker(t.ctx.sequelize, taskQueue, { webhookAgent: agent, config: loadConfig({ ...process.env, ...env }) });
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  agent?.destroy();
});

interface Delivery {
  accountId: string;
  secretKey: string;
  endpointId: string;
  eventId: string;
  path: string;
  handle: WorkflowHandle;
}

/** A workspace whose endpoint is dead, and a test event's delivery to it failing its first attempt. */
async function failingDelivery(): Promise<Delivery> {
  const ws = await t.ctx.createWorkspace();
  const path = `/dead-${randomUUID()}`;
  dead.add(path);
  const created = await http<{ data: { id: string } }>(api.baseUrl, 'POST', BASE, { key: ws.secretKey, body: { url: receiver.url(path) } });
  expect(created.status).toBe(201);
  const sent = await http<{ data: { id: string } }>(api.baseUrl, 'POST', `${BASE}/${created.body.data.id}/test`, { key: ws.secretKey });
  expect(sent.status).toBe(202);
  const delivery = { accountId: ws.accountId, secretKey: ws.secretKey, endpointId: created.body.data.id, eventId: sent.body.data.id, path };
  await waitFor(async () => (await attemptsOf(delivery)).length === 1);
  return { ...delivery, handle: t.ctx.temporal.workflow.getHandle(workflowIds.webhookDelivery(delivery.eventId, delivery.endpointId)) };
}

const attemptsOf = (d: { endpointId: string; eventId: string }) => WebhookDeliveryAttempt.findAll({ where: { endpointId: d.endpointId, eventId: d.eventId }, order: [['id', 'ASC']] });

const hitsOf = (d: Delivery) => receiver.received.filter((r) => r.path === d.path);

/** Workflow ids the visibility query lists (it trails the workflow slightly, so callers wait for it). */
async function listed(query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const run of t.ctx.temporal.workflow.list({ query })) ids.push(run.workflowId);
  return ids;
}

/** The listing once `done` holds for it. */
async function listedOnce(query: string, done: (ids: string[]) => boolean): Promise<string[]> {
  return waitFor(async () => {
    const ids = await listed(query);
    return done(ids) && ids;
  });
}

const lifecycleOf = async (handle: WorkflowHandle) => (await handle.describe()).typedSearchAttributes.get(LIFECYCLE_STATE);

/** The log promises no attempt that will not run: only the newest row may point past the newest attempt's start. */
async function expectTrueLog(d: Delivery) {
  const rows = await attemptsOf(d);
  const newest = rows.at(-1)!;
  for (const row of rows.slice(0, -1)) {
    expect({ attempt: row.attempt, status: row.status, next: row.nextAttemptAt !== null && row.nextAttemptAt > newest.scheduledAt }).toEqual({
      attempt: row.attempt,
      status: row.status,
      next: false,
    });
  }
  return rows;
}

const retry = (d: Pick<Delivery, 'endpointId' | 'eventId'>, key: string) =>
  http<{ data: Record<string, unknown> }>(api.baseUrl, 'POST', `${BASE}/${d.endpointId}/deliveries/${d.eventId}/retry`, { key });

describe('a webhook delivery failing against a dead endpoint', () => {
  it('is listed by AccountId and LifecycleState="retrying"; fixed and retried through the API it is delivered at once, the log true', async () => {
    const d = await failingDelivery();
    const query = `AccountId = "${d.accountId}" AND LifecycleState = "retrying"`;
    expect(await listedOnce(query, (ids) => ids.length > 0)).toEqual([d.handle.workflowId]);
    expect(await lifecycleOf(d.handle)).toBe('retrying');
    const [first] = await attemptsOf(d);
    expect(first!.status).toBe('retry_scheduled');
    expect(first!.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() + HOUR_MS / 2);

    dead.delete(d.path);
    const res = await retry(d, d.secretKey);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ accountId: d.accountId, endpointId: d.endpointId, eventId: d.eventId, attempt: 2, outcome: 'succeeded', status: 'delivered' });
    expect(hitsOf(d).map((h) => h.status)).toEqual([503, 200]);
    expect(await d.handle.result()).toMatchObject({ status: 'delivered' });
    expect(await lifecycleOf(d.handle)).toBe('delivered');

    const rows = await expectTrueLog(d);
    expect(rows.map((r) => [r.attempt, r.status])).toEqual([
      [1, 'retry_scheduled'],
      [2, 'succeeded'],
    ]);
    // The first row now says when its retry was really made.
    expect(rows[0]!.nextAttemptAt!.getTime()).toBe(rows[1]!.scheduledAt.getTime());
    expect(await listedOnce(query, (ids) => ids.length === 0)).toEqual([]);

    expectError(await retry(d, d.secretKey), 409, 'INVALID_STATE');
  });

  it('retried while still dead: the attempt fails, the wait starts again from it, still listed as retrying', async () => {
    const d = await failingDelivery();
    const res = await retry(d, d.secretKey);
    expect(res.body.data).toMatchObject({ attempt: 2, outcome: 'failed', status: 'retrying' });
    const rows = await expectTrueLog(d);
    expect(rows.map((r) => [r.attempt, r.status])).toEqual([
      [1, 'retry_scheduled'],
      [2, 'retry_scheduled'],
    ]);
    expect(rows[1]!.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() + HOUR_MS / 2);
    expect(await lifecycleOf(d.handle)).toBe('retrying');
    await d.handle.terminate('test over');
  });

  it('answers 404 for another workspace’s delivery (either of its keys) and for an event the endpoint never had', async () => {
    const d = await failingDelivery();
    const other = await t.ctx.createWorkspace();
    expectError(await retry(d, other.secretKey), 404, 'RESOURCE_NOT_FOUND');
    expectError(await retry(d, other.liveSecretKey), 404, 'RESOURCE_NOT_FOUND');
    expectError(await retry({ endpointId: d.endpointId, eventId: 'evt_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }, d.secretKey), 404, 'RESOURCE_NOT_FOUND');
    // Nothing was attempted by the refused calls.
    expect(hitsOf(d)).toHaveLength(1);
    expect(await lifecycleOf(d.handle)).toBe('retrying');
    await d.handle.terminate('test over');
  });

  it('after `temporal workflow reset` the reset run re-attempts, and the replaced run’s scheduled row no longer promises an attempt', async () => {
    const d = await failingDelivery();
    // The first workflow task has completed once the run shows its wait.
    await waitFor(async () => (await lifecycleOf(d.handle)) === 'retrying');
    const history = await d.handle.fetchHistory();
    // The first workflow task: its attempt, then the hour's timer.
    const firstTask = history.events!.find((e) => e.workflowTaskCompletedEventAttributes)!;
    const { runId } = await d.handle.describe();
    const reset = await t.ctx.temporal.workflowService.resetWorkflowExecution({
      namespace: 'default',
      workflowExecution: { workflowId: d.handle.workflowId, runId },
      workflowTaskFinishEventId: firstTask.eventId,
      reason: 'operator re-runs the first attempt',
      requestId: randomUUID(),
    });
    expect(reset.runId).not.toBe(runId);

    // The reset run re-executes its first task: a new attempt (a new attempt key), then a new wait.
    await waitFor(async () => (await attemptsOf(d)).length === 2);
    expect(hitsOf(d).map((h) => h.status)).toEqual([503, 503]);
    const rows = await expectTrueLog(d);
    expect(rows.map((r) => [r.attempt, r.status])).toEqual([
      [1, 'retry_scheduled'],
      [1, 'retry_scheduled'],
    ]);
    expect(rows[0]!.nextAttemptAt!.getTime()).toBe(rows[1]!.scheduledAt.getTime());
    const current = t.ctx.temporal.workflow.getHandle(d.handle.workflowId);
    expect(await waitFor(async () => (await lifecycleOf(current)) === 'retrying')).toBe(true);

    dead.delete(d.path);
    expect((await retry(d, d.secretKey)).body.data).toMatchObject({ attempt: 2, outcome: 'succeeded', status: 'delivered' });
    expect((await expectTrueLog(d)).map((r) => [r.attempt, r.status])).toEqual([
      [1, 'retry_scheduled'],
      [1, 'retry_scheduled'],
      [2, 'succeeded'],
    ]);
  });
});
