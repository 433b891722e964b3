import { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { Event, WebhookDeliveryAttempt } from '../../db/models';
import { emit } from '../../db/outbox';
import { signWebhookPayload, verifyWebhookSignature } from '../../index';
import { workflowIds } from '../../workflows/messages';
import { http, useTestApi } from '../helpers/context';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type ReceivedWebhook, type TestCertificates } from '../helpers/https-receiver';
import { usePrivateDatabase } from '../helpers/private-database';
import { testDataConverter } from '../helpers/temporal-codec';
import { waitFor } from '../helpers/wait';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

/**
 * End to end on the dev server: the API in this process, `worker/main.ts` (Temporal worker + outbox relay)
 * as a child process trusting the test CA through NODE_EXTRA_CA_CERTS, and a real HTTPS receiver on
 * loopback. The worker runs in its own namespace so its schedules never meet other test files', and on
 * its own database so its relay never takes their events.
 */
jest.setTimeout(180_000);

const RETRY = '3s,3s,3s,3s,3s,3s';
usePrivateDatabase('webhooks_e2e');
const t = useTestApi({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
const namespace = `webhooks-e2e-${process.pid}-${Date.now()}`;
const taskQueue = 'commerce-e2e';

let certs: TestCertificates;
let receiver: HttpsReceiver;
let worker: WorkerProcess | undefined;
let client: Client;

function workerEnv(): Record<string, string> {
  return {
    NODE_EXTRA_CA_CERTS: certs.caFile,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_RETRY_SCHEDULE: RETRY,
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_TASK_QUEUE: taskQueue,
  };
}

beforeAll(async () => {
  certs = await createTestCertificates();
  receiver = await startHttpsReceiver(certs);
  await t.ctx.temporal.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  client = new Client({ connection: t.ctx.temporal.connection, namespace, dataConverter: testDataConverter() });
  worker = await startWorkerProcess(workerEnv());
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
});

const EP = '/api/v1/payment/webhook-endpoints';
const at = (path: string) => (r: ReceivedWebhook[]) => r.filter((x) => x.path === path);

async function register(key: string, path: string) {
  const res = await http<{ data: { id: string; secret: string } }>(t.api.baseUrl, 'POST', EP, { key, body: { url: receiver.url(path) } });
  expect(res.status).toBe(201);
  return res.body.data;
}

/** waitFor with the worker's output in the failure, which is what explains a stuck delivery. */
const until = <T>(probe: () => Promise<T | undefined | false>, what: string) =>
  waitFor(probe, { timeoutMs: 60_000, intervalMs: 100, describe: () => `${what}\n--- worker output ---\n${worker?.output() ?? ''}` });

const attemptsOf = (eventId: string) => WebhookDeliveryAttempt.findAll({ where: { eventId }, order: [['attempt', 'ASC']] });

describe('webhooks end to end (dev server, worker process, real HTTPS)', () => {
  it('delivers a signed service.product.created.v1 for a product create, which verifyWebhookSignature accepts', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'pro' });
    const endpoint = await register(ws.secretKey, '/e2e-product');
    const created = await http<{ data: { id: string; name: string } }>(t.api.baseUrl, 'POST', '/api/v1/storefront/products', {
      key: ws.secretKey,
      body: { name: 'Field notes', price: 12, currency: 'USD', type: 'digital' },
    });
    expect(created.status).toBe(201);

    const [hit] = at('/e2e-product')(await receiver.waitFor((r) => at('/e2e-product')(r).length === 1, 30_000));
    const envelope = JSON.parse(hit!.rawBody) as { id: string; type: string; createdAt: string; accountId: string; data: { id: string; name: string } };
    expect(Object.keys(envelope).sort()).toEqual(['accountId', 'createdAt', 'data', 'id', 'type']);
    expect(envelope).toMatchObject({ type: 'service.product.created.v1', accountId: ws.accountId, data: { id: created.body.data.id, name: 'Field notes' } });
    expect(envelope.id).toMatch(/^evt_[0-9A-Z]{26}$/);
    expect(hit!.headers['x-service-event-id']).toBe(envelope.id);
    expect(hit!.headers['x-service-delivery-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(hit!.headers['content-type']).toBe('application/json');
    expect(hit!.headers['user-agent']).toMatch(/^CommerceService-Webhooks\//);

    const header = hit!.headers['x-service-signature'] as string;
    const timestamp = Number(/^t=(\d+),/.exec(header)![1]);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(30);
    expect(verifyWebhookSignature(hit!.rawBody, header, endpoint.secret, { toleranceSeconds: 300 })).toEqual({ valid: true, timestamp });
    // A tampered body, and a signature whose t is 301 s old, are both refused.
    expect(verifyWebhookSignature(hit!.rawBody.replace('Field notes', 'Field nOtes'), header, endpoint.secret)).toEqual({ valid: false, reason: 'signature_mismatch' });
    expect(verifyWebhookSignature(hit!.rawBody, header, endpoint.secret, { now: timestamp + 301 })).toEqual({ valid: false, reason: 'timestamp_outside_tolerance' });
    const stale = signWebhookPayload(hit!.rawBody, endpoint.secret, Math.floor(Date.now() / 1000) - 301);
    expect(verifyWebhookSignature(hit!.rawBody, stale, endpoint.secret)).toEqual({ valid: false, reason: 'timestamp_outside_tolerance' });
  });

  it('still delivers when the receiver is down for the first two attempts: one event id, three delivery ids', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'pro' });
    await register(ws.secretKey, '/e2e-down');
    await receiver.down();
    try {
      const event = await t.ctx.sequelize.transaction((tx) => emit(tx, { accountId: ws.accountId, environment: 'test' }, 'checkout.completed', { amount: 4200 }));
      await until(async () => (await attemptsOf(event.id)).length === 2, 'two refused attempts');
      await receiver.listen();
      const [hit] = at('/e2e-down')(await receiver.waitFor((r) => at('/e2e-down')(r).length === 1, 30_000));
      const attempts = await until(async () => {
        const rows = await attemptsOf(event.id);
        return rows.length === 3 && rows;
      }, 'third attempt recorded');
      expect(attempts.map((a) => [a.attempt, a.status, a.error])).toEqual([
        [1, 'retry_scheduled', 'connection refused'],
        [2, 'retry_scheduled', 'connection refused'],
        [3, 'succeeded', null],
      ]);
      expect(new Set(attempts.map((a) => a.eventId))).toEqual(new Set([event.id]));
      expect(new Set(attempts.map((a) => a.deliveryId)).size).toBe(3);
      expect(hit!.headers['x-service-event-id']).toBe(event.id);
      expect(hit!.headers['x-service-delivery-id']).toBe(attempts[2]!.deliveryId);
    } finally {
      await receiver.listen().catch(() => undefined);
    }
  });

  it('delivers after the worker is SIGKILLed in a retry wait, and relays an event committed while nothing fanned out', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'pro' });
    const endpoint = await register(ws.secretKey, '/e2e-crash');
    let served = 0;
    receiver.respond((req) => (req.path === '/e2e-crash' && served++ === 0 ? 500 : 200));
    const waiting = await t.ctx.sequelize.transaction((tx) => emit(tx, { accountId: ws.accountId, environment: 'test' }, 'checkout.completed', { n: 1 }));
    const handle = client.workflow.getHandle(workflowIds.webhookDelivery(waiting.id, endpoint.id));
    // In the retry wait: the first attempt failed and the workflow's timer is running.
    await until(async () => {
      const events = (await handle.fetchHistory().catch(() => ({ events: [] }))).events ?? [];
      return events.some((e) => e.timerStartedEventAttributes) && !events.some((e) => e.timerFiredEventAttributes);
    }, 'timer started');
    await worker!.kill();

    // An API that died between its commit and any fan-out leaves exactly this: a committed, unpublished row.
    const orphan = await t.ctx.sequelize.transaction((tx) => emit(tx, { accountId: ws.accountId, environment: 'test' }, 'service.product.archived.v1', { id: 'prod_gone', accountId: ws.accountId }));
    await new Promise((r) => setTimeout(r, 4_000)); // the retry falls due while no worker runs
    expect((await Event.findByPk(orphan.id))!.publishedAt).toBeNull();
    expect(at('/e2e-crash')(receiver.received)).toHaveLength(1);

    worker = await startWorkerProcess(workerEnv());
    const hits = at('/e2e-crash')(
      await receiver.waitFor((r) => at('/e2e-crash')(r).filter((h) => h.status === 200).length === 2, 60_000),
    );
    const byEvent = (id: string) => hits.filter((h) => h.headers['x-service-event-id'] === id);
    expect(byEvent(waiting.id).map((h) => h.status)).toEqual([500, 200]);
    expect(byEvent(waiting.id)[0]!.rawBody).toBe(byEvent(waiting.id)[1]!.rawBody);
    expect(byEvent(orphan.id).map((h) => h.status)).toEqual([200]);
    expect(JSON.parse(byEvent(orphan.id)[0]!.rawBody)).toMatchObject({ id: orphan.id, type: 'service.product.archived.v1' });
    expect((await Event.findByPk(orphan.id))!.publishedAt).not.toBeNull();
    expect(await handle.result()).toMatchObject({ status: 'delivered' });
  });

  it('re-sends an attempt cut short by a SIGKILL under a new X-Service-Delivery-Id, and logs that attempt once', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'pro' });
    const endpoint = await register(ws.secretKey, '/e2e-held');
    // The first request is held open past the kill; the re-run is answered at once.
    receiver.respond((req) => (req.path === '/e2e-held' && at('/e2e-held')(receiver.received).length === 0 ? { status: 200, delayMs: 30_000 } : 200));
    const event = await t.ctx.sequelize.transaction((tx) => emit(tx, { accountId: ws.accountId, environment: 'test' }, 'checkout.completed', { n: 3 }));
    await receiver.waitFor((r) => at('/e2e-held')(r).length === 1, 30_000);
    await worker!.kill();

    worker = await startWorkerProcess(workerEnv());
    const hits = at('/e2e-held')(await receiver.waitFor((r) => at('/e2e-held')(r).length === 2, 60_000));
    expect(hits.map((h) => h.headers['x-service-event-id'])).toEqual([event.id, event.id]);
    expect(hits[1]!.rawBody).toBe(hits[0]!.rawBody);
    expect(hits[1]!.headers['x-service-delivery-id']).not.toBe(hits[0]!.headers['x-service-delivery-id']);

    // Both sends were attempt 1: the workflow saw one attempt, and the log holds one row, for the send that was answered.
    const handle = client.workflow.getHandle(workflowIds.webhookDelivery(event.id, endpoint.id));
    expect(await handle.result()).toEqual({ status: 'delivered', attempts: [{ attempt: 1, outcome: 'succeeded' }] });
    const attempts = await until(async () => {
      const rows = await attemptsOf(event.id);
      return rows.length === 1 && rows;
    }, 'the attempt recorded');
    expect(attempts.map((a) => [a.attempt, a.status, a.deliveryId])).toEqual([[1, 'succeeded', hits[1]!.headers['x-service-delivery-id']]]);
  });
});
