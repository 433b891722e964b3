import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { AuditLog, WebhookDeliveryAttempt, WebhookEndpoint } from '../../db/models';
import { loadConfig } from '../../lib/config';
import { newId } from '../../lib/ids';
import { verifyWebhookSignature } from '../../lib/webhooks/signature';
import { createWebhookAgent } from '../../lib/webhooks/send';
import { createStarters } from '../../domain/workflow-starters';
import { serialiseEnvelope } from '../../lib/webhooks/envelope';
import { createWorker } from '../../worker/worker';
import { workflowIds } from '../../workflows/messages';
import type { WebhookDeliveryInput } from '../../workflows/messages';
import type { webhookDelivery } from '../../workflows/webhook-delivery';
import { insertWebhookEndpoint } from '../fixtures/webhooks';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver';
import { plainHistory, testDataConverter } from '../helpers/temporal-codec';
import { createTimeSkippingEnv } from '../helpers/temporal-env';
import { waitFor } from '../helpers/wait';
import { testActivityDeps } from '../helpers/worker';

/**
 * Delivery timelines on the Java time-skipping test server: hours of retry schedule pass in seconds, while
 * every attempt is a real HTTPS POST to a real receiver on loopback and every record lands in PostgreSQL.
 */
const config = loadConfig({ ...process.env, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
const SCHEDULE = loadConfig({}).WEBHOOK_RETRY_SCHEDULE;
const TASK_QUEUE = 'webhook-delivery-timeline';

let ctx: TestContext;
let api: TestApi;
let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
let receiver: HttpsReceiver;
let agent: ReturnType<typeof createWebhookAgent>;

beforeAll(async () => {
  ctx = await createTestContext();
  api = await ctx.startApi();
  const certs = await createTestCertificates();
  receiver = await startHttpsReceiver(certs);
  agent = createWebhookAgent({ ca: certs.caCert });
  env = await createTimeSkippingEnv();
  worker = await createWorker({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue: TASK_QUEUE,
    deps: testActivityDeps(ctx.sequelize, { config, webhookAgent: agent }),
    workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
  });
  running = worker.run();
}, 120_000);
afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
  await receiver?.close();
  agent?.destroy();
  await ctx?.close();
});

interface Fixture {
  accountId: string;
  secretKey: string;
  endpoint: WebhookEndpoint;
  secret: string;
  path: string;
}

let fixtures = 0;
async function fixture(): Promise<Fixture> {
  const ws = await ctx.createWorkspace({ plan: 'pro' });
  fixtures += 1;
  const pathname = `/timeline-${fixtures}`;
  const { row: endpoint, secret } = await insertWebhookEndpoint(ws, { url: receiver.url(pathname) });
  return { accountId: ws.accountId, secretKey: ws.secretKey, endpoint, secret, path: pathname };
}

async function deliver(f: Fixture, options: { epoch?: number; schedule?: number[]; client?: Client } = {}): Promise<{ handle: WorkflowHandle<typeof webhookDelivery>; input: WebhookDeliveryInput }> {
  const eventId = newId('evt');
  const input: WebhookDeliveryInput = {
    eventId,
    eventType: 'checkout.completed',
    accountId: f.accountId,
    environment: 'test',
    endpointId: f.endpoint.id,
    endpointEpoch: options.epoch ?? 0,
    url: f.endpoint.url,
    body: serialiseEnvelope({ id: eventId, type: 'checkout.completed', createdAt: new Date(), accountId: f.accountId, data: { amount: 1200 } }),
    retrySchedule: options.schedule ?? SCHEDULE,
  };
  const client = options.client ?? env.client;
  expect(await createStarters(client, { taskQueue: TASK_QUEUE, searchAttributes: false }).webhookDelivery(input)).toBe(true);
  return { handle: client.workflow.getHandle<typeof webhookDelivery>(workflowIds.webhookDelivery(eventId, f.endpoint.id)), input };
}

const hitsOf = (f: Fixture) => receiver.received.filter((r) => r.path === f.path);

/** Fails the first `failures` requests to this fixture's path, then answers 200. */
function failFirst(f: Fixture, failures: number): void {
  receiver.respond((req) => {
    if (req.path !== f.path) return 200;
    return hitsOf(f).length < failures ? 500 : 200;
  });
}

/**
 * When each attempt's outcome was recorded, in server time: a local activity's result is a marker in the
 * workflow's history, stamped when the workflow task that ran it completed.
 */
async function attemptTimes(handle: WorkflowHandle): Promise<number[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? [])
    .filter((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_MARKER_RECORDED)
    .map((e) => tsToMs(e.eventTime));
}

/** Time between consecutive attempts; each is the retry delay plus the next attempt's own duration and task latency. */
const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

async function recordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const history = await plainHistory(handle);
  await writeFile(path.join(__dirname, '../replay/histories', `${name}.json`), JSON.stringify(history, null, 2));
}

describe('webhook delivery timeline (time-skipping server)', () => {
  it('uses the documented default schedule: 1m, 5m, 30m, 2h, 8h, 24h', () => {
    expect(SCHEDULE).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 28_800_000, 86_400_000]);
  });

  it('retries after each failure at exactly the scheduled offsets and stops at the first 2xx', async () => {
    const f = await fixture();
    failFirst(f, 3);
    const { handle, input } = await deliver(f);
    const result = await handle.result();

    expect(result.status).toBe('delivered');
    expect(result.attempts.map((a) => a.outcome)).toEqual(['failed', 'failed', 'failed', 'succeeded']);
    // Each retry starts its delay when the previous attempt failed; the only slack is workflow-task latency, a few
    // seconds at most on a loaded machine, far below the one-minute gap between any two scheduled offsets.
    gaps(await attemptTimes(handle)).forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(SCHEDULE[i]!);
      expect(gap - SCHEDULE[i]!).toBeLessThan(10_000);
    });

    const hits = hitsOf(f);
    expect(hits.map((h) => h.status)).toEqual([500, 500, 500, 200]);
    // Identical bytes on every attempt, one event id, a new delivery id each time, each signed at its send time.
    expect(new Set(hits.map((h) => h.rawBody))).toEqual(new Set([input.body]));
    expect(new Set(hits.map((h) => h.headers['x-service-event-id']))).toEqual(new Set([input.eventId]));
    expect(new Set(hits.map((h) => h.headers['x-service-delivery-id'])).size).toBe(4);
    for (const hit of hits) {
      expect(hit.headers['content-type']).toBe('application/json');
      expect(hit.headers['user-agent']).toMatch(/^CommerceService-Webhooks\//);
      expect(verifyWebhookSignature(hit.rawBody, hit.headers['x-service-signature'] as string, f.secret)).toMatchObject({ valid: true });
    }

    const rows = await WebhookDeliveryAttempt.findAll({ where: { endpointId: f.endpoint.id }, order: [['attempt', 'ASC']] });
    expect(rows.map((r) => [r.attempt, r.status, r.statusCode])).toEqual([
      [1, 'retry_scheduled', 500],
      [2, 'retry_scheduled', 500],
      [3, 'retry_scheduled', 500],
      [4, 'succeeded', 200],
    ]);
    expect(rows.map((r) => r.deliveryId)).toEqual(hits.map((h) => h.headers['x-service-delivery-id']));
    // Each failed row promised the next attempt SCHEDULE[i] after it, until that attempt was made: then it says when.
    // Here the server skips the waits, so the next attempt ran sooner by the wall clock and the promise became its time.
    rows.slice(0, 3).forEach((row, i) => {
      const promised = row.nextAttemptAt!.getTime();
      const made = rows[i + 1]!.scheduledAt.getTime();
      expect(promised).toBeLessThanOrEqual(made);
      expect(promised === made || promised - row.createdAt.getTime() >= SCHEDULE[i]! - 1_000).toBe(true);
    });
    // The success reset the three-failure streak.
    expect((await WebhookEndpoint.findByPk(f.endpoint.id))!.consecutiveFailures).toBe(0);
    await recordHistory(handle, 'webhook-delivery-retried');
  });

  it('drops the delivery after the first attempt and six retries all fail (about 35 hours), recording it as failed', async () => {
    const f = await fixture();
    failFirst(f, Number.POSITIVE_INFINITY);
    const { handle } = await deliver(f);
    const result = await handle.result();

    expect(result.status).toBe('failed');
    expect(result.attempts).toHaveLength(7);
    const times = await attemptTimes(handle);
    expect(times).toHaveLength(7);
    const span = times[6]! - times[0]!;
    expect(span).toBeGreaterThanOrEqual(SCHEDULE.reduce((a, b) => a + b, 0));
    expect(span / 3_600_000).toBeCloseTo(34.6, 0);

    const rows = await WebhookDeliveryAttempt.findAll({ where: { endpointId: f.endpoint.id }, order: [['attempt', 'ASC']] });
    expect(rows.map((r) => r.status)).toEqual([...Array(6).fill('retry_scheduled'), 'failed']);
    expect(rows[6]!.nextAttemptAt).toBeNull();
    await env.sleep('3 days');
    expect(hitsOf(f)).toHaveLength(7);
    expect((await WebhookEndpoint.findByPk(f.endpoint.id))!.consecutiveFailures).toBe(7);
    await recordHistory(handle, 'webhook-delivery-dropped');
  });

  it('stops without sending again once the endpoint is deleted mid-schedule', async () => {
    const f = await fixture();
    failFirst(f, Number.POSITIVE_INFINITY);
    const { handle } = await deliver(f);
    await waitFor(async () => (await WebhookDeliveryAttempt.count({ where: { endpointId: f.endpoint.id } })) === 1);
    await env.sleep('61s');
    await waitFor(async () => (await WebhookDeliveryAttempt.count({ where: { endpointId: f.endpoint.id } })) === 2);

    const deleted = await http(api.baseUrl, 'DELETE', `/api/v1/payment/webhook-endpoints/${f.endpoint.id}`, { key: f.secretKey });
    expect(deleted.status).toBe(200);
    const result = await handle.result();
    expect(result.status).toBe('stopped');
    expect(result.attempts.map((a) => a.outcome)).toEqual(['failed', 'failed', 'endpoint_gone']);
    expect(hitsOf(f)).toHaveLength(2);
    await recordHistory(handle, 'webhook-delivery-stopped');
  });

  it('disables the endpoint after 20 consecutive failed attempts across its events, stopping its pending retries', async () => {
    const f = await fixture();
    failFirst(f, Number.POSITIVE_INFINITY);
    // A delivery in its retry wait when the endpoint gets disabled: first attempt fails, next one due in 1m.
    const pending = await deliver(f);
    await waitFor(async () => (await WebhookDeliveryAttempt.count({ where: { eventId: pending.input.eventId } })) === 1);

    // Other events fail meanwhile on 50 ms schedules, in real time: a plain client's result() does not unlock
    // time skipping (the test environment's does, and would jump straight to the pending retry's timer).
    const quick = { schedule: Array(6).fill(50), client: new Client({ connection: env.connection, namespace: env.namespace, dataConverter: testDataConverter() }) };
    const first = await (await deliver(f, quick)).handle.result();
    const second = await (await deliver(f, quick)).handle.result();
    expect([first.status, second.status]).toEqual(['failed', 'failed']);
    expect((await WebhookEndpoint.findByPk(f.endpoint.id))!.toJSON()).toMatchObject({ active: true, consecutiveFailures: 15 });

    const third = await (await deliver(f, quick)).handle.result();
    expect(third.status).toBe('stopped');
    expect(third.attempts.map((a) => a.outcome)).toEqual(['failed', 'failed', 'failed', 'failed', 'endpoint_disabled']);
    expect(hitsOf(f)).toHaveLength(20);
    expect((await WebhookEndpoint.findByPk(f.endpoint.id))!.toJSON()).toMatchObject({ active: false, consecutiveFailures: 20, deliveryEpoch: 1 });
    const disabled = await AuditLog.findAll({ where: { targetId: f.endpoint.id, action: 'webhook_endpoint.disabled' } });
    expect(disabled.map((a) => a.data)).toEqual([{ reason: 'consecutive_failures', consecutiveFailures: 20 }]);

    // Re-enabling through PATCH resumes delivery of new events; the retry pending from before stays dropped.
    receiver.respond(() => 200);
    const patched = await http(api.baseUrl, 'PATCH', `/api/v1/payment/webhook-endpoints/${f.endpoint.id}`, { key: f.secretKey, body: { active: true } });
    expect(patched.status).toBe(200);
    await env.sleep('2 minutes');
    const pendingResult = await pending.handle.result();
    expect(pendingResult.status).toBe('stopped');
    expect(pendingResult.attempts.map((a) => a.outcome)).toEqual(['failed', 'endpoint_disabled']);
    const fresh = await (await deliver(f, { epoch: 1 })).handle.result();
    expect(fresh.status).toBe('delivered');
    expect(hitsOf(f).map((h) => h.status)).toEqual([...Array(20).fill(500), 200]);
    expect((await WebhookEndpoint.findByPk(f.endpoint.id))!.consecutiveFailures).toBe(0);
  });
});
