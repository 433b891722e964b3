import { Client } from '@temporalio/client';
import { QueryTypes } from 'sequelize';
import { WebhookDeliveryAttempt, WebhookEndpoint, Event } from '../../db/models';
import { emit } from '../../db/outbox';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { verifyWebhookSignature } from '../../lib/webhooks/signature';
import { createWebhookAgent } from '../../lib/webhooks/send';
import { startOutboxRelay, type OutboxRelay } from '../../worker/outbox-relay';
import { ACCOUNT_ID, workflowIds } from '../../workflows/messages';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { waitFor } from '../helpers/wait';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type ReceivedWebhook } from '../helpers/https-receiver';
import { usePrivateDatabase } from '../helpers/private-database';
import { testDataConverter } from '../helpers/temporal-codec';
import { startTestWorker, type RunningWorker } from '../helpers/worker';
import { createStarters } from '../../domain/workflow-starters';
import type { EventType } from '../../lib/event-types';

/**
 * The relay against the shared dev server: real LISTEN/NOTIFY, real workflow starts, a real worker and a
 * real HTTPS receiver, on a database of its own. The sweep is set to a minute so only the notification can
 * explain a prompt delivery.
 */
const TASK_QUEUE = `outbox-relay-${process.pid}-${Date.now()}`;
const RETRY = [700, 700, 700, 700, 700, 700];
const env = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', TEMPORAL_TASK_QUEUE: TASK_QUEUE };

usePrivateDatabase('outbox_relay');
let config: ReturnType<typeof loadConfig>;
let ctx: TestContext;
let api: TestApi;
let receiver: HttpsReceiver;
let agent: ReturnType<typeof createWebhookAgent>;
let worker: RunningWorker;
const relays: OutboxRelay[] = [];

function relay(sweepIntervalMs = 60_000, retrySchedule = RETRY): OutboxRelay {
  const started = startOutboxRelay({
    sequelize: ctx.sequelize,
    starters: createStarters(ctx.temporal, { taskQueue: TASK_QUEUE }),
    databaseUrl: config.DATABASE_URL!,
    retrySchedule,
    logger: createLogger('silent', 'relay-test'),
    sweepIntervalMs,
  });
  relays.push(started);
  return started;
}

beforeAll(async () => {
  config = loadConfig({ ...process.env, ...env });
  ctx = await createTestContext();
  api = await ctx.startApi(env);
  const certs = await createTestCertificates();
  receiver = await startHttpsReceiver(certs);
  agent = createWebhookAgent({ ca: certs.caCert });
  worker = await startTestWorker(ctx.sequelize, TASK_QUEUE, { config, webhookAgent: agent });
});
afterAll(async () => {
  await Promise.all(relays.map((r) => r.stop()));
  await worker?.stop();
  await receiver?.close();
  agent?.destroy();
  await ctx?.close();
});

async function register(key: string, body: Record<string, unknown>) {
  const res = await http<{ data: { id: string; secret: string; url: string } }>(api.baseUrl, 'POST', '/api/v1/payment/webhook-endpoints', { key, body });
  expect(res.status).toBe(201);
  return res.body.data;
}

/** Commits an event exactly as a route would: the outbox row in its own committed transaction. */
async function commitEvent(accountId: string, type: EventType, data: Record<string, unknown> = {}, environment: 'test' | 'live' = 'test') {
  return ctx.sequelize.transaction((tx) => emit(tx, { accountId, environment }, type, data));
}

const at = (path: string) => (r: ReceivedWebhook[]) => r.filter((x) => x.path === path);


const listenerPids = async () =>
  (
    await ctx.sequelize.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN events_outbox'`, {
      type: QueryTypes.SELECT,
    })
  ).map((r) => r.pid);
const listeners = async () => (await listenerPids()).length;

async function settle(ms = 1_500) {
  await new Promise((r) => setTimeout(r, ms));
}

describe('outbox relay', () => {
  it('fans a committed event out promptly (LISTEN/NOTIFY) to every matching active endpoint of its workspace and environment only', async () => {
    const r = relay();
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const other = await ctx.createWorkspace({ plan: 'pro' });
    receiver.respond(() => 200);
    const all = await register(ws.secretKey, { url: receiver.url('/r1-all'), events: [] });
    const matching = await register(ws.secretKey, { url: receiver.url('/r1-match'), events: ['service.product.created.v1'] });
    await register(ws.secretKey, { url: receiver.url('/r1-filtered'), events: ['checkout.completed'] });
    await register(ws.secretKey, { url: receiver.url('/r1-inactive'), active: false });
    await register(ws.liveSecretKey, { url: receiver.url('/r1-live') });
    await register(other.secretKey, { url: receiver.url('/r1-other') });
    await r.idle();

    const started = Date.now();
    const event = await commitEvent(ws.accountId, 'service.product.created.v1', { id: 'prod_x', name: 'Mug' });
    // The sweep is a minute away: only the notification explains a delivery within 20 s (normally < 1 s).
    const got = await receiver.waitFor((x) => at('/r1-all')(x).length === 1 && at('/r1-match')(x).length === 1, 20_000);
    expect(Date.now() - started).toBeLessThan(20_000);
    await settle();
    const paths = got.filter((x) => x.path.startsWith('/r1-')).map((x) => x.path).sort();
    expect(paths).toEqual(['/r1-all', '/r1-match']);

    const hit = at('/r1-all')(got)[0]!;
    expect(JSON.parse(hit.rawBody)).toEqual({ id: event.id, type: 'service.product.created.v1', createdAt: event.createdAt.toISOString(), accountId: ws.accountId, data: { id: 'prod_x', name: 'Mug' } });
    expect(verifyWebhookSignature(hit.rawBody, hit.headers['x-service-signature'] as string, all.secret)).toMatchObject({ valid: true });
    expect(at('/r1-match')(got)[0]!.rawBody).toBe(hit.rawBody);
    expect(verifyWebhookSignature(hit.rawBody, at('/r1-match')(got)[0]!.headers['x-service-signature'] as string, matching.secret)).toMatchObject({ valid: true });
    expect((await Event.findByPk(event.id))!.publishedAt).not.toBeNull();

    const description = await ctx.temporal.workflow.getHandle(workflowIds.webhookDelivery(event.id, all.id)).describe();
    expect(description.typedSearchAttributes.get(ACCOUNT_ID)).toBe(ws.accountId);
  });

  it('makes a repeated fan-out a no-op: one workflow and one delivery per (event, endpoint), even with two relays racing', async () => {
    relay();
    relay();
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    receiver.respond(() => 200);
    await register(ws.secretKey, { url: receiver.url('/r2-a') });
    await register(ws.secretKey, { url: receiver.url('/r2-b') });
    const events = await Promise.all(Array.from({ length: 40 }, (_, i) => commitEvent(ws.accountId, 'checkout.completed', { n: i })));
    await receiver.waitFor((x) => x.filter((h) => h.path.startsWith('/r2-')).length >= 80, 20_000);

    // A relay that died after starting the workflows but before marking its batch leaves rows unpublished.
    await Event.update({ publishedAt: null }, { where: { id: events.slice(0, 10).map((e) => e.id) } });
    relays[relays.length - 1]!.wake();
    await Promise.all(relays.map((r) => r.idle()));
    await settle(2_000);

    const hits = receiver.received.filter((h) => h.path.startsWith('/r2-'));
    expect(hits).toHaveLength(80);
    const pairs = hits.map((h) => `${h.path}:${h.headers['x-service-event-id']}`);
    expect(new Set(pairs).size).toBe(80);
    expect(await Event.count({ where: { id: events.map((e) => e.id), publishedAt: null } })).toBe(0);
  });

  it('applies filter changes to future events only (no backfill)', async () => {
    const r = relay();
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    receiver.respond(() => 200);
    const endpoint = await register(ws.secretKey, { url: receiver.url('/r3'), events: ['payout.paid'] });
    const before = await commitEvent(ws.accountId, 'checkout.completed');
    r.wake();
    await waitFor(async () => (await Event.findByPk(before.id))!.publishedAt !== null);

    await http(api.baseUrl, 'PATCH', `/api/v1/payment/webhook-endpoints/${endpoint.id}`, { key: ws.secretKey, body: { events: [] } });
    const after = await commitEvent(ws.accountId, 'checkout.completed');
    const got = await receiver.waitFor((x) => at('/r3')(x).length === 1);
    await settle();
    expect(at('/r3')(got).map((h) => h.headers['x-service-event-id'])).toEqual([after.id]);
  });

  it('keeps a pending retry on the old URL after a URL change and signs it with the rotated secret', async () => {
    relay();
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const endpoint = await register(ws.secretKey, { url: receiver.url('/r4-old') });
    let oldFailures = 0;
    receiver.respond((req) => (req.path === '/r4-old' && oldFailures++ === 0 ? 503 : 200));
    const first = await commitEvent(ws.accountId, 'checkout.completed', { n: 1 });
    await receiver.waitFor((x) => at('/r4-old')(x).length === 1);

    const patched = await http<{ data: { secret: string } }>(api.baseUrl, 'PATCH', `/api/v1/payment/webhook-endpoints/${endpoint.id}`, {
      key: ws.secretKey,
      body: { url: receiver.url('/r4-new'), rotateSecret: true },
    });
    const second = await commitEvent(ws.accountId, 'checkout.completed', { n: 2 });
    const got = await receiver.waitFor((x) => at('/r4-old')(x).length === 2 && at('/r4-new')(x).length === 1);

    expect(at('/r4-old')(got).map((h) => h.headers['x-service-event-id'])).toEqual([first.id, first.id]);
    expect(at('/r4-new')(got).map((h) => h.headers['x-service-event-id'])).toEqual([second.id]);
    const retry = at('/r4-old')(got)[1]!;
    expect(verifyWebhookSignature(retry.rawBody, retry.headers['x-service-signature'] as string, patched.body.data.secret)).toMatchObject({ valid: true });
    expect(verifyWebhookSignature(retry.rawBody, retry.headers['x-service-signature'] as string, endpoint.secret)).toMatchObject({ valid: false });
    // The attempt is logged once the receiver has answered, so the row can trail the receipt.
    const attempts = await waitFor(async () => {
      const rows = await WebhookDeliveryAttempt.findAll({ where: { eventId: first.id }, order: [['attempt', 'ASC']] });
      return rows.length >= 2 && rows;
    });
    expect(attempts.map((a) => [a.attempt, a.url, a.status])).toEqual([
      [1, receiver.url('/r4-old'), 'retry_scheduled'],
      [2, receiver.url('/r4-old'), 'succeeded'],
    ]);
    expect((await WebhookEndpoint.findByPk(endpoint.id))!.url).toBe(receiver.url('/r4-new'));
  });

  it('picks up an event whose notification was lost, on the next sweep', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    receiver.respond(() => 200);
    await register(ws.secretKey, { url: receiver.url('/r5') });
    await Promise.all(relays.splice(0).map((r) => r.stop()));
    const sweeping = relay(500);
    await waitFor(async () => (await listeners()) === 1);
    await sweeping.idle();
    // No NOTIFY for this insert, and the relay has done its start-up pass: only the sweep can find it.
    const lost = await ctx.sequelize.transaction(async (tx) => {
      await ctx.sequelize.query('ALTER TABLE events DISABLE TRIGGER events_notify_relay', { transaction: tx });
      const event = await emit(tx, { accountId: ws.accountId, environment: 'test' }, 'checkout.completed', {});
      await ctx.sequelize.query('ALTER TABLE events ENABLE TRIGGER events_notify_relay', { transaction: tx });
      return event;
    });
    const got = await receiver.waitFor((x) => at('/r5')(x).length === 1, 20_000);
    expect(at('/r5')(got)[0]!.headers['x-service-event-id']).toBe(lost.id);
  });

  it('re-listens after its LISTEN connection is cut, and delivers promptly again', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    receiver.respond(() => 200);
    await register(ws.secretKey, { url: receiver.url('/r6') });
    await Promise.all(relays.splice(0).map((r) => r.stop()));
    relay();
    await waitFor(async () => (await listeners()) === 1);
    const [cut] = await listenerPids();
    await ctx.sequelize.query('SELECT pg_terminate_backend(:pid)', { replacements: { pid: cut } });
    await waitFor(async () => {
      const pids = await listenerPids();
      return pids.length === 1 && pids[0] !== cut;
    });
    const event = await commitEvent(ws.accountId, 'checkout.completed');
    const got = await receiver.waitFor((x) => at('/r6')(x).length === 1, 20_000);
    expect(at('/r6')(got)[0]!.headers['x-service-event-id']).toBe(event.id);
  });

  it('leaves the events unpublished when a workflow start fails, so a later pass still delivers them', async () => {
    await Promise.all(relays.splice(0).map((r) => r.stop()));
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    receiver.respond(() => 200);
    await register(ws.secretKey, { url: receiver.url('/r8') });
    // A client of a namespace that does not exist: every start fails after the claim has marked the rows.
    const failing = startOutboxRelay({
      sequelize: ctx.sequelize,
      starters: createStarters(new Client({ connection: ctx.temporal.connection, namespace: 'no-such-namespace', dataConverter: testDataConverter() }), { taskQueue: TASK_QUEUE }),
      databaseUrl: config.DATABASE_URL!,
      retrySchedule: RETRY,
      logger: createLogger('silent', 'relay-test'),
      sweepIntervalMs: 60_000,
    });
    const event = await commitEvent(ws.accountId, 'checkout.completed');
    failing.wake();
    await failing.idle();
    await failing.stop();
    expect((await Event.findByPk(event.id))!.publishedAt).toBeNull();
    expect(at('/r8')(receiver.received)).toHaveLength(0);

    relay();
    const got = await receiver.waitFor((x) => at('/r8')(x).length === 1);
    expect(at('/r8')(got)[0]!.headers['x-service-event-id']).toBe(event.id);
    await waitFor(async () => (await Event.findByPk(event.id))!.publishedAt !== null);
  });

  it('cancels the pending retries of an endpoint that is deleted or disabled, instead of leaving them waiting', async () => {
    // Only a relay with an hour between attempts: a retry then cannot end by itself while the test watches.
    await Promise.all(relays.splice(0).map((r) => r.stop()));
    relay(60_000, [3_600_000, 3_600_000]);
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    receiver.respond((req) => (req.path.startsWith('/r7-') ? 503 : 200));
    const deleted = await register(ws.secretKey, { url: receiver.url('/r7-deleted') });
    const disabled = await register(ws.secretKey, { url: receiver.url('/r7-disabled') });
    const kept = await register(ws.secretKey, { url: receiver.url('/r7-kept') });
    const event = await commitEvent(ws.accountId, 'checkout.completed');
    const handle = (endpointId: string) => ctx.temporal.workflow.getHandle(workflowIds.webhookDelivery(event.id, endpointId));
    await waitFor(async () => (await WebhookDeliveryAttempt.count({ where: { eventId: event.id, status: 'retry_scheduled' } })) === 3);
    // Cancellation finds the runs through visibility, which trails the start a little (the documented best effort).
    const running = `WorkflowType = 'webhookDelivery' AND ExecutionStatus = 'Running' AND AccountId = '${ws.accountId}'`;
    await waitFor(async () => (await ctx.temporal.workflow.count(running)).count === 3);

    expect((await http(api.baseUrl, 'DELETE', `/api/v1/payment/webhook-endpoints/${deleted.id}`, { key: ws.secretKey })).status).toBe(200);
    const patched = await http(api.baseUrl, 'PATCH', `/api/v1/payment/webhook-endpoints/${disabled.id}`, { key: ws.secretKey, body: { active: false } });
    expect(patched.status).toBe(200);

    await waitFor(async () => (await handle(deleted.id).describe()).status.name === 'CANCELLED');
    await waitFor(async () => (await handle(disabled.id).describe()).status.name === 'CANCELLED');
    expect((await handle(kept.id).describe()).status.name).toBe('RUNNING');
    await handle(kept.id).terminate('test over');
  });
});
