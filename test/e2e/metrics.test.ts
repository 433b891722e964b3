import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { Client as PgClient } from 'pg';
import { QueryTypes } from 'sequelize';
import { parse as parseYaml } from 'yaml';
import { emit } from '../../db/outbox';
import { newId } from '../../lib/ids';
import { freePort } from '../../scripts/lib/free-port';
import { queueTestEmail, receiptRequest, testEmailBox, testEmailConfig } from '../fixtures/emails';
import { CHECKOUT_SESSIONS, createSession } from '../helpers/checkout';
import { createTestContext, http, type TestContext } from '../helpers/context';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type TestCertificates } from '../helpers/https-receiver';
import { usePrivateDatabase } from '../helpers/private-database';
import { exportedNames, promqlMetricNames, sample, sampleSum, scrape, type Exposition } from '../helpers/prometheus';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtp-server';
import { waitFor } from '../helpers/wait';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

/**
 * Metrics end to end (docs/metrics.md): `api/main.ts` and `worker/main.ts` as processes, scraped over real sockets
 * as Prometheus would. The worker runs in a namespace and on a database of its own (its relays take every event of
 * its database; its schedules would move other files'), sends webhooks to a real HTTPS receiver and e-mails to a
 * real SMTP server.
 */
jest.setTimeout(180_000);

usePrivateDatabase('metrics_e2e');
const namespace = `metrics-e2e-${process.pid}-${Date.now()}`;
const taskQueue = 'commerce-metrics-e2e';
const POOL_MAX = 7;
const OUTBOX_AGE_S = 600;
const START_AGE_S = 300;

let ctx: TestContext;
let certs: TestCertificates;
let receiver: HttpsReceiver;
let smtp: TestSmtpServer;
let api: WorkerProcess;
let worker: WorkerProcess;
let apiPort: number;
let apiMetricsPort: number;
let workerPort: number;
/** Holds the row locks that keep one event and one workflow start unrelayed until the lag test lets them go. */
let holder: PgClient;
let heldEventId: string;
let heldStartId: string;
let workspace: { accountId: string; secretKey: string };

const apiMetrics = () => scrape(`http://127.0.0.1:${apiMetricsPort}/metrics`);
const workerMetrics = () => scrape(`http://127.0.0.1:${workerPort}/metrics`);
const apiUrl = (path: string) => `http://127.0.0.1:${apiPort}${path}`;

const until = <T>(probe: () => Promise<T | undefined | false>, what: string) =>
  waitFor(probe, { timeoutMs: 60_000, intervalMs: 200, describe: () => `${what}\n--- worker ---\n${worker?.output() ?? ''}\n--- api ---\n${api?.output() ?? ''}` });

beforeAll(async () => {
  ctx = await createTestContext();
  certs = await createTestCertificates();
  receiver = await startHttpsReceiver(certs);
  smtp = await startTestSmtpServer();
  await ctx.temporal.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  workspace = await ctx.createWorkspace({ plan: 'pro' });
  const tenant = { accountId: workspace.accountId, environment: 'test' as const };

  // Before any relay runs: one event and one durable start, committed long ago as far as their rows say, then
  // locked, so the worker's relays (FOR UPDATE SKIP LOCKED) pass them by until the lag test releases them.
  heldEventId = (await ctx.sequelize.transaction((tx) => emit(tx, tenant, 'checkout.completed', { held: true }))).id;
  await ctx.sequelize.query(`UPDATE events SET created_at = now() - make_interval(secs => ${OUTBOX_AGE_S}) WHERE id = $1`, { bind: [heldEventId] });
  const { workflowId } = await queueTestEmail(ctx.sequelize, { box: testEmailBox, config: testEmailConfig }, tenant, receiptRequest({ to: 'held@example.test' }));
  const [start] = await ctx.sequelize.query<{ id: string }>(
    `UPDATE workflow_starts SET created_at = now() - make_interval(secs => ${START_AGE_S}) WHERE workflow_id = $1 RETURNING id`,
    { bind: [workflowId], type: QueryTypes.SELECT },
  );
  heldStartId = start!.id;
  holder = new PgClient({ connectionString: process.env.DATABASE_URL });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query('SELECT id FROM events WHERE id = $1 FOR UPDATE', [heldEventId]);
  await holder.query('SELECT id FROM workflow_starts WHERE id = $1 FOR UPDATE', [heldStartId]);

  [apiPort, apiMetricsPort, workerPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const shared = { TEMPORAL_NAMESPACE: namespace, TEMPORAL_TASK_QUEUE: taskQueue, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', DATABASE_POOL_MAX: String(POOL_MAX) };
  [api, worker] = await Promise.all([
    startWorkerProcess({ ...shared, PORT: String(apiPort), METRICS_PORT: String(apiMetricsPort) }, { script: 'api/main.ts', startedMessage: 'api listening' }),
    startWorkerProcess({
      ...shared,
      WORKER_HEALTH_PORT: String(workerPort),
      NODE_EXTRA_CA_CERTS: certs.caFile,
      WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s',
      SMTP_URL: smtp.url,
      EMAIL_FROM: testEmailConfig.EMAIL_FROM,
    }),
  ]);
}, 180_000);

afterAll(async () => {
  await holder?.query('ROLLBACK').catch(() => undefined);
  await holder?.end().catch(() => undefined);
  await Promise.all([api?.stop(), worker?.stop()]);
  await Promise.all([receiver?.close(), smtp?.close()]);
  await ctx?.close();
});

describe('the API process', () => {
  it('serves its metrics on METRICS_PORT only: /metrics on PORT is 404', async () => {
    const metrics = await fetch(`http://127.0.0.1:${apiMetricsPort}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await metrics.text();
    expect(text).toContain('# TYPE commerce_http_requests_total counter');
    expect(text).toContain('# TYPE process_cpu_seconds_total counter');

    for (const path of ['/metrics', '/api/metrics']) {
      const onPublicPort = await fetch(apiUrl(path));
      expect(onPublicPort.status).toBe(404);
      expect(await onPublicPort.text()).not.toContain('commerce_http_requests_total');
    }
    expect((await fetch(`http://127.0.0.1:${apiMetricsPort}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${apiMetricsPort}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('counts a request by its route template, method and status, with its latency; the raw path never appears', async () => {
    const productId = newId('prod');
    const route = '/api/v1/storefront/products/:id';
    const before = await apiMetrics();
    const countBefore = sampleSum(before, 'commerce_http_requests_total', { method: 'GET', route, status: '404' });

    const missing = await http(apiUrl(''), 'GET', `/api/v1/storefront/products/${productId}`, { key: workspace.secretKey });
    expect(missing.status).toBe(404);
    const unauthenticated = await http(apiUrl(''), 'GET', `/api/v1/storefront/products/${productId}`);
    expect(unauthenticated.status).toBe(401);
    expect((await http(apiUrl(''), 'GET', `/api/no-such-route/${productId}`)).status).toBe(404);

    const after = await apiMetrics();
    expect(sampleSum(after, 'commerce_http_requests_total', { method: 'GET', route, status: '404' })).toBe(countBefore + 1);
    expect(sample(after, 'commerce_http_requests_total', { method: 'GET', route, status: '401' })?.value).toBeGreaterThanOrEqual(1);
    expect(sampleSum(after, 'commerce_http_request_duration_seconds_count', { method: 'GET', route, status: '404' })).toBe(countBefore + 1);
    expect(sampleSum(after, 'commerce_http_request_duration_seconds_bucket', { method: 'GET', route, status: '404', le: '+Inf' })).toBe(countBefore + 1);
    // A resource's own root is named by its prefix, as declared, without a trailing slash.
    const listCountBefore = sampleSum(before, 'commerce_http_requests_total', { method: 'GET', route: '/api/v1/storefront/products', status: '200' });
    expect((await http(apiUrl(''), 'GET', '/api/v1/storefront/products', { key: workspace.secretKey })).status).toBe(200);
    const afterList = await apiMetrics();
    expect(sampleSum(afterList, 'commerce_http_requests_total', { method: 'GET', route: '/api/v1/storefront/products', status: '200' })).toBe(listCountBefore + 1);
    // No route matched: one constant label, whatever the path.
    expect(sampleSum(after, 'commerce_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    const routes = new Set(after.samples.filter((s) => s.name === 'commerce_http_requests_total').map((s) => s.labels.route));
    expect([...routes].filter((r) => r !== undefined && (r.includes(productId) || r.includes('no-such-route')))).toEqual([]);
  });

  it('reports its database pool', async () => {
    // A request that queries, so the pool has opened a connection.
    expect((await fetch(apiUrl('/readyz'))).status).toBe(200);
    const metrics = await apiMetrics();
    expect(sample(metrics, 'commerce_db_pool_max_connections')?.value).toBe(POOL_MAX);
    expect(sample(metrics, 'commerce_db_pool_connections')?.value).toBeGreaterThanOrEqual(1);
    expect(sample(metrics, 'commerce_db_pool_waiting_requests')?.value).toBe(0);
  });
});

describe('the worker process', () => {
  it('reports the outbox and start-relay lag of what waits unrelayed, and 0 once the relays have caught up', async () => {
    const held = await workerMetrics();
    expect(sample(held, 'commerce_outbox_lag_seconds')?.value).toBeGreaterThanOrEqual(OUTBOX_AGE_S);
    expect(sample(held, 'commerce_outbox_pending_events')?.value).toBeGreaterThanOrEqual(1);
    expect(sample(held, 'commerce_start_relay_lag_seconds')?.value).toBeGreaterThanOrEqual(START_AGE_S);
    expect(sample(held, 'commerce_start_relay_pending_starts')?.value).toBeGreaterThanOrEqual(1);

    await holder.query('COMMIT');
    const caughtUp = await until(async () => {
      const metrics = await workerMetrics();
      const lags = ['commerce_outbox_lag_seconds', 'commerce_start_relay_lag_seconds'].map((name) => sample(metrics, name)?.value);
      return lags.every((lag) => lag === 0) && metrics;
    }, 'both relays caught up');
    expect(sample(caughtUp, 'commerce_outbox_pending_events')?.value).toBe(0);
    expect(sample(caughtUp, 'commerce_start_relay_pending_starts')?.value).toBe(0);
    // The held start was an e-mail's: it is sent before the e-mail test counts its own.
    await until(async () => smtp.received.some((m) => m.envelope.to.includes('held@example.test')), 'the held e-mail sent');
    await until(async () => sampleSum(await workerMetrics(), 'commerce_email_attempts_total', { outcome: 'sent' }) === 1, 'the held e-mail counted');
  });

  it("serves the service's metrics and the Temporal SDK's on /metrics, beside /healthz and /readyz", async () => {
    await until(async () => (await fetch(`http://127.0.0.1:${workerPort}/readyz`)).status === 200, 'worker ready');
    const metrics = await workerMetrics();
    // The service's own: its pool, its relays, the process.
    expect(sample(metrics, 'commerce_db_pool_max_connections')?.value).toBe(POOL_MAX);
    expect(metrics.types.get('commerce_webhook_attempts_total')).toBe('counter');
    expect(metrics.types.get('process_cpu_seconds_total')).toBe('counter');
    // The SDK's, from its core runtime: task slots of each worker type, once the worker polls.
    const slots = metrics.samples.filter((s) => s.name === 'temporal_worker_task_slots_available' && s.labels.task_queue === taskQueue);
    expect(slots.map((s) => s.labels.worker_type)).toEqual(expect.arrayContaining(['WorkflowWorker', 'ActivityWorker']));
    expect((await fetch(`http://127.0.0.1:${workerPort}/healthz`)).status).toBe(200);
  });

  it("counts workflow task failures in the SDK's metrics", async () => {
    const client = new Client({ connection: ctx.temporal.connection, namespace });
    const handle = await client.workflow.start('noSuchWorkflow', { taskQueue, workflowId: `metrics-unknown-${Date.now()}`, args: [] });
    try {
      const metrics = await until(async () => {
        const scraped = await workerMetrics();
        return sampleSum(scraped, 'temporal_workflow_task_execution_failed_total', { workflow_type: 'noSuchWorkflow' }) > 0 && scraped;
      }, 'the failed workflow task counted');
      expect(sampleSum(metrics, 'temporal_workflow_task_schedule_to_start_latency_seconds_count', { task_queue: taskQueue })).toBeGreaterThan(0);
    } finally {
      await handle.terminate('metrics test');
    }
  });

  it('counts webhook attempts by outcome', async () => {
    const path = `/metrics-${Date.now()}`;
    let answered = 0;
    receiver.respond((req) => (req.path === path && answered++ === 0 ? 500 : 200));
    const before = await workerMetrics();
    const endpoint = await http<{ data: { id: string } }>(apiUrl(''), 'POST', '/api/v1/payment/webhook-endpoints', { key: workspace.secretKey, body: { url: receiver.url(path) } });
    expect(endpoint.status).toBe(201);
    await ctx.sequelize.transaction((tx) => emit(tx, { accountId: workspace.accountId, environment: 'test' }, 'checkout.completed', { n: 1 }));

    await receiver.waitFor((r) => r.filter((x) => x.path === path && x.status === 200).length === 1, 60_000);
    const after = await until(async () => {
      const metrics = await workerMetrics();
      return sampleSum(metrics, 'commerce_webhook_attempts_total', { outcome: 'succeeded' }) > sampleSum(before, 'commerce_webhook_attempts_total', { outcome: 'succeeded' }) && metrics;
    }, 'the successful attempt counted');
    expect(sampleSum(after, 'commerce_webhook_attempts_total', { outcome: 'failed' }) - sampleSum(before, 'commerce_webhook_attempts_total', { outcome: 'failed' })).toBe(1);
    expect(sampleSum(after, 'commerce_webhook_attempts_total', { outcome: 'succeeded' }) - sampleSum(before, 'commerce_webhook_attempts_total', { outcome: 'succeeded' })).toBe(1);
  });

  it('counts e-mail sends by outcome, and the e-mails given up', async () => {
    const tenant = { accountId: workspace.accountId, environment: 'test' as const };
    const count = (metrics: Exposition, outcome: string) => sampleSum(metrics, 'commerce_email_attempts_total', { outcome });
    const before = await workerMetrics();
    smtp.refuseNext(1, 550);
    await queueTestEmail(ctx.sequelize, { box: testEmailBox, config: testEmailConfig }, tenant, receiptRequest({ to: 'refused@example.test' }));
    await until(async () => count(await workerMetrics(), 'refused') > count(before, 'refused'), 'the refused e-mail counted');
    await queueTestEmail(ctx.sequelize, { box: testEmailBox, config: testEmailConfig }, tenant, receiptRequest({ to: 'accepted@example.test' }));
    const after = await until(async () => {
      const metrics = await workerMetrics();
      return count(metrics, 'sent') > count(before, 'sent') && sampleSum(metrics, 'commerce_emails_given_up_total') > sampleSum(before, 'commerce_emails_given_up_total') && metrics;
    }, 'the sent e-mail and the given-up one counted');
    expect(count(after, 'refused') - count(before, 'refused')).toBe(1);
    expect(count(after, 'sent') - count(before, 'sent')).toBe(1);
    expect(count(after, 'failed') - count(before, 'failed')).toBe(0);
    expect(sampleSum(after, 'commerce_emails_given_up_total') - sampleSum(before, 'commerce_emails_given_up_total')).toBe(1);
  });
});

// After the e-mail test, which counts every send: the worker fulfils a completed session, receipt e-mail included.
describe('checkout completions', () => {
  it('counts a checkout session once its completion has committed, by environment and backend', async () => {
    const labels = { environment: 'test', backend: 'local' };
    const before = sampleSum(await apiMetrics(), 'commerce_checkout_completions_total', labels);
    const session = await createSession(apiUrl(''), workspace.secretKey);
    expect((await http(apiUrl(''), 'POST', `${CHECKOUT_SESSIONS}/${session.id}/pay`, { body: { paymentMethod: 'va' } })).status).toBe(200);
    expect(sampleSum(await apiMetrics(), 'commerce_checkout_completions_total', labels)).toBe(before);
    // Under an Idempotency-Key the completion is a savepoint of the request's transaction: counted at its commit.
    const confirm = () => http(apiUrl(''), 'POST', `${CHECKOUT_SESSIONS}/${session.id}/confirm`, { key: workspace.secretKey, headers: { 'idempotency-key': `confirm-${session.id}` } });
    expect((await confirm()).status).toBe(200);
    expect(sampleSum(await apiMetrics(), 'commerce_checkout_completions_total', labels)).toBe(before + 1);
    // A replay, and a second confirm refused as INVALID_STATE, complete nothing.
    expect((await confirm()).status).toBe(200);
    expect((await http(apiUrl(''), 'POST', `${CHECKOUT_SESSIONS}/${session.id}/confirm`, { key: workspace.secretKey })).status).toBe(409);
    expect(sampleSum(await apiMetrics(), 'commerce_checkout_completions_total', labels)).toBe(before + 1);
  });
});

describe('deploy/: the Grafana dashboard and the Prometheus alert rules', () => {
  const DEPLOY = path.resolve(__dirname, '..', '..', 'deploy');
  /** Series Prometheus makes itself for every target it scrapes; no process exports them. */
  const PROMETHEUS_OWN = new Set(['up']);

  interface Panel {
    panels?: Panel[];
    targets?: { expr?: string }[];
  }
  const panelExpressions = (panels: Panel[]): string[] =>
    panels.flatMap((p) => [...(p.targets ?? []).flatMap((t) => (t.expr ? [t.expr] : [])), ...panelExpressions(p.panels ?? [])]);
  const alerts = parseYaml(readFileSync(path.join(DEPLOY, 'prometheus', 'alerts.yml'), 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] };
  const alertRules = alerts.groups.flatMap((g) => g.rules);
  const dashboard = JSON.parse(readFileSync(path.join(DEPLOY, 'grafana', 'commerce-service.json'), 'utf8')) as { panels: Panel[] };

  it('reads metric names out of PromQL, and nothing else', () => {
    expect(
      promqlMetricNames(
        'histogram_quantile(0.95, sum by (le, route) (rate(a_bucket{job=~"$api_job",route!="x_y"}[$__rate_interval]))) / ignoring(route) group_left b_total offset 5m > bool 1e3 and on (job) c or absent(up{job="w"})',
      ).sort(),
    ).toEqual(['a_bucket', 'b_total', 'c', 'up']);
    expect(promqlMetricNames('sum(rate(x[5m])) by (status)')).toEqual(['x']);
  });

  it('alert on the 5xx rate, the outbox and start-relay lags, the delivery failure rate and schedule-to-start latency', () => {
    const named = new Set(alertRules.flatMap((r) => promqlMetricNames(r.expr)));
    expect([...named]).toEqual(
      expect.arrayContaining([
        'commerce_http_requests_total',
        'commerce_outbox_lag_seconds',
        'commerce_start_relay_lag_seconds',
        'commerce_webhook_attempts_total',
        'temporal_workflow_task_schedule_to_start_latency_seconds_bucket',
      ]),
    );
    for (const rule of alertRules) expect({ alert: rule.alert, names: promqlMetricNames(rule.expr).length > 0 }).toEqual({ alert: rule.alert, names: true });
  });

  it('name only metrics the running API and worker export', async () => {
    const exported = new Set([...exportedNames(await apiMetrics()), ...exportedNames(await workerMetrics()), ...PROMETHEUS_OWN]);
    const expressions = [...alertRules.map((r) => r.expr), ...panelExpressions(dashboard.panels)];
    expect(expressions.length).toBeGreaterThan(20);
    const missing = [...new Set(expressions.flatMap(promqlMetricNames))].filter((name) => !exported.has(name)).sort();
    expect(missing).toEqual([]);
  });
});
