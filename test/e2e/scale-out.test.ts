import { randomBytes, randomInt } from 'node:crypto';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@temporalio/client';
import { QueryTypes } from 'sequelize';
import { CheckoutSession, Delivery, Product } from '../../db/models';
import { planCheckoutFulfillment } from '../../domain/checkout/fulfillment';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { freePort } from '../../scripts/lib/free-port';
import { workflowIds } from '../../workflows/messages';
import { insertDelivery } from '../fixtures/deliveries';
import { appliedSteps, eventsOfSession } from '../fixtures/fulfillment';
import { CHECKOUT_SESSIONS } from '../helpers/checkout';
import { compiledBuild, type CompiledBuild } from '../helpers/compiled-build';
import { createTestContext, http, type HttpResult, type TestContext } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type TestCertificates } from '../helpers/https-receiver';
import { postMultipart } from '../helpers/multipart';
import { usePrivateDatabase } from '../helpers/private-database';
import { startS3Server, type S3TestServer } from '../helpers/s3-server';
import { startTemporalServer, type TemporalServer } from '../helpers/temporal-server';
import { testDataConverter } from '../helpers/temporal-codec';
import { waitFor } from '../helpers/wait';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

/**
 * Scale-out as production runs it: two API processes and two worker processes started from the compiled build
 * (`node dist/api/main.js`, `node dist/worker/main.js`, plain node, a bare environment, NODE_ENV=production) on
 * one PostgreSQL database, the production Temporal server (go.temporal.io/server on PostgreSQL, not the dev server)
 * and blobs in one bucket of a real S3-compatible server. Requests go round-robin over the API processes, as a load
 * balancer sends them; one that meets a dead process is sent again, with its Idempotency-Key, to the other.
 */
jest.setTimeout(600_000);

const TASK_QUEUE = 'commerce';
const RATE_LIMIT = 100;
/** A key revoked through one process is refused by the others within 100 ms (docs/architecture.md); their cache holds it up to AUTH_CACHE_TTL (60 s). Loose for two shared cores: any refusal this early came from the notification. */
const REVOCATION_LIMIT_MS = 5_000;
const KEYS = '/api/v1/account/api-keys';
const PRODUCTS = '/api/v1/storefront/products';

const run = promisify(execFile);

usePrivateDatabase('scale_out_e2e');

let build: CompiledBuild;
let s3: S3TestServer;
let temporal: TemporalServer;
let ctx: TestContext;
let client: Client;
let certs: TestCertificates;
let receiver: HttpsReceiver;
let sharedEnv: Record<string, string>;
const saved = { TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE };

interface ApiProcess {
  baseUrl: string;
  process: WorkerProcess;
  up: boolean;
}
const apis: ApiProcess[] = [];
const workers: (WorkerProcess | undefined)[] = [];

async function startApi(slot: number): Promise<void> {
  const port = await freePort();
  const proc = await startWorkerProcess(
    { ...sharedEnv, PORT: String(port) },
    { script: build.api, startedMessage: 'api listening', inheritEnv: false },
  );
  apis[slot] = { baseUrl: `http://127.0.0.1:${port}`, process: proc, up: true };
}
async function startWorker(slot: number): Promise<void> {
  workers[slot] = await startWorkerProcess({ ...sharedEnv, WORKER_HEALTH_PORT: '0', WORKFLOW_BUNDLE_PATH: build.bundle }, { script: build.worker, inheritEnv: false });
}

beforeAll(async () => {
  build = await compiledBuild();
  certs = await createTestCertificates();
  receiver = await startHttpsReceiver(certs);
  s3 = await startS3Server();
  temporal = await startTemporalServer({ postgresUrl: process.env.DATABASE_URL!, namespace: 'commerce' });
  const bucket = await s3.createBucket();
  Object.assign(process.env, { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_NAMESPACE: temporal.namespace });
  ctx = await createTestContext();
  client = new Client({ connection: ctx.temporal.connection, namespace: temporal.namespace, dataConverter: testDataConverter() });
  sharedEnv = {
    NODE_ENV: 'production',
    DATABASE_URL: process.env.DATABASE_URL!,
    DATABASE_POOL_MAX: '5',
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    ENCRYPTION_KEY: process.env.ENCRYPTION_KEY!,
    PUBLIC_BASE_URL: 'https://shop.example.test',
    DATA_DIR: path.join(tmpdir(), `scale-out-${process.pid}`),
    FILE_STORAGE_DIR: path.join(tmpdir(), `scale-out-${process.pid}`, 'files'),
    ...s3.env(bucket),
    RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    NODE_EXTRA_CA_CERTS: certs.caFile,
  };
  // Workers first: the first registers the schedules, and two starting at once must both come up.
  await Promise.all([startWorker(0), startWorker(1)]);
  await Promise.all([startApi(0), startApi(1)]);
}, 900_000);
afterAll(async () => {
  await Promise.all(apis.map((a) => a?.process.stop()));
  await Promise.all(workers.map(async (w) => w?.stop()));
  await ctx?.close();
  Object.assign(process.env, saved);
  await temporal?.stop();
  await s3?.stop();
  await receiver?.close();
  await build?.cleanup();
});

let turn = 0;
/** Round-robin over the API processes that are up; a request that dies with its process goes to the next one. */
async function balanced<T = Record<string, unknown>>(
  method: string,
  pathname: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpResult<T> & { servedBy: number }> {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    const slot = turn++ % apis.length;
    const api = apis[slot]!;
    if (!api.up) continue;
    try {
      const result = await http<T>(api.baseUrl, method, pathname, options);
      // A key whose first request died with its process: the other answers 409 until that request's lock is gone.
      if (result.status === 409 && (result.body as { error?: { code?: string } })?.error?.code === 'IDEMPOTENCY_KEY_IN_USE') {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      return { ...result, servedBy: slot };
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`${method} ${pathname}: no API process answered\n${apis.map((a) => a.process.output()).join('\n---\n')}`);
}

const describeProcesses = () =>
  [...apis.map((a, i) => `--- api ${i} ---\n${a.process.output()}`), ...workers.map((w, i) => `--- worker ${i} ---\n${w?.output() ?? '(down)'}`), `--- temporal ---\n${temporal.output()}`].join('\n');
const until = <T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 120_000) =>
  waitFor(probe, { timeoutMs, intervalMs: 250, describe: () => `${what}\n${describeProcesses()}` });

async function digitalProductWithFile(ws: CreatedWorkspace, content: Buffer): Promise<{ productId: string; fileId: string }> {
  const created = await http<{ data: { id: string } }>(apis[0]!.baseUrl, 'POST', PRODUCTS, {
    key: ws.secretKey,
    body: { name: 'Field guide', price: 90, currency: 'USD', type: 'digital', published: true },
  });
  expect(created.status).toBe(201);
  const productId = created.body.data.id;
  const uploaded = await postMultipart(apis[0]!.baseUrl, `${PRODUCTS}/${productId}/files`, ws.secretKey, [
    { name: 'file', filename: 'guide.pdf', contentType: 'application/pdf', data: content },
  ]);
  expect(uploaded.status).toBe(201);
  return { productId, fileId: (uploaded.body as { data: { id: string } }).data.id };
}

/** A delivery's signed link, read through one API process and downloaded through the other. */
async function downloadCrosswise(ws: CreatedWorkspace, deliveryId: string, from: number): Promise<Buffer> {
  const dto = await http<{ data: { downloadUrl: string } }>(apis[from]!.baseUrl, 'GET', `/api/v1/storefront/deliveries/${deliveryId}`, { key: ws.secretKey });
  expect(dto.status).toBe(200);
  const downloaded = await fetch(`${apis[1 - from]!.baseUrl}${new URL(dto.body.data.downloadUrl).pathname}`);
  expect(downloaded.status).toBe(200);
  return Buffer.from(await downloaded.arrayBuffer());
}

describe('two API and two worker processes from dist/ on the production Temporal server, PostgreSQL and S3', () => {
  it('both workers poll the one task queue', async () => {
    const pollers = await until(async () => {
      const { stdout } = await run(process.env.TEMPORAL_CLI_PATH ?? path.join(process.env.COMMERCE_TOOLS_DIR ?? path.join(process.env.HOME!, '.cache', 'commerce-tools'), 'bin', 'temporal'), [
        'task-queue',
        'describe',
        '--address',
        temporal.address,
        '--namespace',
        temporal.namespace,
        '--task-queue',
        TASK_QUEUE,
        '--output',
        'json',
      ]);
      const identities = new Set((JSON.parse(stdout) as { pollers?: { identity: string }[] }).pollers?.map((p) => p.identity.split('@')[0]));
      return identities.size >= 2 && identities;
    }, 'two pollers on the task queue');
    expect([...pollers].sort()).toEqual(workers.map((w) => String(w!.pid)).sort());
  });

  it('serves a file uploaded through one API process from the other', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const content = randomBytes(6 * 1024 * 1024 + 17);
    const { productId, fileId } = await digitalProductWithFile(ws, content);
    const delivery = await insertDelivery(ctx.sequelize, ws, productId, { fileId });
    expect((await downloadCrosswise(ws, delivery.id, 0)).equals(content)).toBe(true);
  });

  it('replays an Idempotency-Key request through the other process', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const headers = { 'idempotency-key': `scale-out-${randomBytes(6).toString('hex')}` };
    const body = { name: 'Once only', price: 5, currency: 'USD', type: 'digital' };
    const first = await http<{ data: { id: string } }>(apis[0]!.baseUrl, 'POST', PRODUCTS, { key: ws.secretKey, body, headers });
    const again = await http<{ data: { id: string } }>(apis[1]!.baseUrl, 'POST', PRODUCTS, { key: ws.secretKey, body, headers });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await Product.count({ where: { accountId: ws.accountId } })).toBe(1);
  });

  it('refuses on one process a key revoked through the other, within the documented bound', async () => {
    const ws = await ctx.createWorkspace();
    const [a, b] = [apis[0]!.baseUrl, apis[1]!.baseUrl];
    const created = await http<{ data: { id: string; value: string } }>(a, 'POST', KEYS, { key: ws.secretKey, body: { name: 'scale-out', environment: 'test', access: 'secret' } });
    expect(created.status).toBe(201);
    const key = created.body.data;
    // B looks it up and caches it.
    expect((await http(b, 'GET', KEYS, { key: key.value })).status).toBe(200);
    expect((await http(b, 'GET', KEYS, { key: key.value })).status).toBe(200);

    expect((await http(a, 'DELETE', `${KEYS}/${key.id}`, { key: ws.secretKey })).status).toBe(200);
    const revokedAt = performance.now();
    let refused = await http(b, 'GET', KEYS, { key: key.value });
    while (refused.status === 200 && performance.now() - revokedAt < REVOCATION_LIMIT_MS) {
      await new Promise((r) => setTimeout(r, 5));
      refused = await http(b, 'GET', KEYS, { key: key.value });
    }
    expect(performance.now() - revokedAt).toBeLessThan(REVOCATION_LIMIT_MS);
    expectError(refused, 401, 'INVALID_API_KEY');
    expectError(await http(a, 'GET', KEYS, { key: key.value }), 401, 'INVALID_API_KEY');
  });

  it('holds one rate limit across both processes', async () => {
    const ws = await ctx.createWorkspace();
    const served = [0, 0];
    for (let i = 0; i < RATE_LIMIT; i += 1) {
      const res = await balanced('GET', PRODUCTS, { key: ws.secretKey });
      expect(res.status).toBe(200);
      served[res.servedBy]! += 1;
    }
    expect(served).toEqual([RATE_LIMIT / 2, RATE_LIMIT / 2]);
    // The workspace's budget is spent, whichever process is asked.
    for (const api of apis) expectError(await http(api.baseUrl, 'GET', PRODUCTS, { key: ws.secretKey }), 429, 'RATE_LIMITED');
  });

  it('delivers each webhook event once per endpoint with both workers polling', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const paths = ['/scale-out-a', '/scale-out-b'];
    for (const pathname of paths) {
      expect((await balanced('POST', '/api/v1/payment/webhook-endpoints', { key: ws.secretKey, body: { url: receiver.url(pathname) } })).status).toBe(201);
    }
    const PRODUCTS_CREATED = 8;
    for (let i = 0; i < PRODUCTS_CREATED; i += 1) {
      expect((await balanced('POST', PRODUCTS, { key: ws.secretKey, body: { name: `Hook ${i}`, price: 1, currency: 'USD', type: 'digital' } })).status).toBe(201);
    }
    const mine = () => receiver.received.filter((r) => paths.includes(r.path));
    await until(async () => mine().length >= PRODUCTS_CREATED * paths.length, 'every event at both endpoints');
    // Time for a duplicate to arrive, had any been sent.
    await new Promise((r) => setTimeout(r, 3_000));
    const eventIds = await ctx.sequelize.query<{ id: string }>(`SELECT id FROM events WHERE account_id = :accountId AND type = 'service.product.created.v1'`, {
      replacements: { accountId: ws.accountId },
      type: QueryTypes.SELECT,
    });
    expect(eventIds).toHaveLength(PRODUCTS_CREATED);
    for (const pathname of paths) {
      const ids = mine()
        .filter((r) => r.path === pathname)
        .map((r) => (JSON.parse(r.rawBody) as { id: string }).id)
        .sort();
      expect(ids).toEqual(eventIds.map((e) => e.id).sort());
    }
  });

  it('fulfils every checkout exactly once while a worker and an API process are SIGKILLed and restarted', async () => {
    const SESSIONS = 16;
    const BATCH = 4;
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const content = randomBytes(64 * 1024);
    const { productId } = await digitalProductWithFile(ws, content);

    const checkout = async (n: number): Promise<string> => {
      const created = await balanced<{ data: { id: string } }>('POST', CHECKOUT_SESSIONS, {
        key: ws.secretKey,
        headers: { 'idempotency-key': `create-${ws.accountId}-${n}` },
        body: { amount: 9000 + n, currency: 'USD', description: `Order ${n}`, customerEmail: `buyer${n}@example.com`, productId },
      });
      expect(created.status).toBe(201);
      const id = created.body.data.id;
      const paid = await balanced('POST', `${CHECKOUT_SESSIONS}/${id}/pay`, { body: { paymentMethod: 'va' }, headers: { 'idempotency-key': `pay-${id}` } });
      expect(paid.status).toBe(200);
      const confirmed = await balanced('POST', `${CHECKOUT_SESSIONS}/${id}/confirm`, { key: ws.secretKey, headers: { 'idempotency-key': `confirm-${id}` } });
      expect(confirmed.status).toBe(200);
      return id;
    };

    const ids: string[] = [];
    for (let first = 0; first < SESSIONS; first += BATCH) {
      const batch = Array.from({ length: BATCH }, (_, i) => first + i);
      const flows = Promise.all(batch.map(checkout));
      if (first === BATCH) {
        // An API process dies with the batch's requests in flight; the balancer sends them to the other.
        await new Promise((r) => setTimeout(r, randomInt(20, 200)));
        apis[0]!.up = false;
        await apis[0]!.process.kill();
        ids.push(...(await flows));
        await startApi(0);
      } else if (first === 2 * BATCH) {
        // A worker dies while it fulfils: once a first step of the batch landed, after a random moment more.
        const batchIds = await flows;
        ids.push(...batchIds);
        await until(async () => (await Promise.all(batchIds.map((id) => appliedSteps(ctx.sequelize, id)))).some((steps) => steps.length > 0), 'a first step of the batch');
        await new Promise((r) => setTimeout(r, randomInt(0, 300)));
        await workers[0]!.kill();
        workers[0] = undefined;
        await startWorker(0);
      } else {
        ids.push(...(await flows));
      }
    }
    expect(new Set(ids).size).toBe(SESSIONS);

    const sessions = await until(
      async () => {
        const rows = await CheckoutSession.findAll({ where: { id: ids } });
        return rows.length === SESSIONS && rows.every((r) => r.fulfilledAt !== null) && rows;
      },
      'every session fulfilled',
      300_000,
    );
    for (const session of sessions) {
      expect(await client.workflow.getHandle(workflowIds.checkoutSession(session.id)).result()).toBe('fulfilled');
      expect(await appliedSteps(ctx.sequelize, session.id)).toEqual(planCheckoutFulfillment(session));
      const deliveries = await Delivery.findAll({ where: { checkoutSessionId: session.id } });
      expect(deliveries.map((d) => d.kind)).toEqual(['download']);
      const events = await eventsOfSession(ctx.sequelize, session.id);
      expect(events.filter((e) => e.type === 'checkout.completed')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'product.purchased').map((e) => e.data.deliveryId)).toEqual([deliveries[0]!.id]);
      const ledger = await ctx.sequelize.query<{ type: string; pending_delta: string }>(`SELECT type, pending_delta FROM balance_transactions WHERE checkout_session_id = :id`, {
        replacements: { id: session.id },
        type: QueryTypes.SELECT,
      });
      expect(ledger.filter((row) => row.type === 'checkout_credit')).toEqual([{ type: 'checkout_credit', pending_delta: String(session.amount) }]);
    }
    const [balance] = await ctx.sequelize.query<{ balance: string; ledger: string }>(
      `SELECT (SELECT pending + available FROM balances WHERE account_id = :accountId AND environment = 'test' AND currency = 'USD') AS balance,
              (SELECT sum(pending_delta + available_delta) FROM balance_transactions WHERE account_id = :accountId AND environment = 'test') AS ledger`,
      { replacements: { accountId: ws.accountId }, type: QueryTypes.SELECT },
    );
    const paid = String(sessions.reduce((sum, s) => sum + s.amount, 0));
    expect(balance).toEqual({ balance: paid, ledger: paid });

    // A buyer's file, from the bucket, through either process.
    const delivery = await Delivery.findOne({ where: { checkoutSessionId: ids[0]! } });
    expect((await downloadCrosswise(ws, delivery!.id, 1)).equals(content)).toBe(true);
  });
});
