/**
 * `npm run bench:scale-out`: what a second API process and a second worker process buy on this machine, on the
 * production Temporal server (go.temporal.io/server on PostgreSQL, test/helpers/temporal-server.ts) and one
 * embedded PostgreSQL, every process a child of this one:
 *
 * - API requests/s: the authenticated product list (GET /api/v1/storefront/products, a page of 50 products with
 *   their files) loaded by autocannon with SCALE_OUT_CONNECTIONS connections, all on one API process, then split
 *   evenly over two;
 * - checkout completions/s: SCALE_OUT_COMPLETIONS sessions of a digital product created and paid through the API
 *   beforehand, then confirmed at once (32 in flight, alternating between the two API processes), from the first
 *   confirm to the last session fulfilled, with one worker process polling, then with two.
 *
 * Each figure comes with the CPU seconds of every process (API, worker, Temporal server, PostgreSQL, this process:
 * the load generator), the statements the API processes send per request or confirm (bench/lib/round-trips.ts),
 * the application's and Temporal's PostgreSQL transactions per completion (pg_stat_database) and the workflows each
 * completion started. Results go to bench/results/scale-out.json.
 *
 * Env: SCALE_OUT_COMPLETIONS (200), SCALE_OUT_CONNECTIONS (32), SCALE_OUT_DURATION (s, 10), SCALE_OUT_WARMUP (s, 3),
 * SCALE_OUT_SHARDS (Temporal history shards, 16), SCALE_OUT_POOL_SIZE (10).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { connectTemporal } from '../api/temporal-client';
import { createDatabase } from '../db/connection';
import { startEmbeddedPostgres } from '../db/embedded-postgres';
import { migrateToLatest } from '../db/migrate';
import { createWorkspaceService } from '../domain/workspaces';
import { createKeyRing, generateEncryptionKey, parseEncryptionKey } from '../lib/crypto-box';
import { freePort } from '../scripts/lib/free-port';
import { insertSellableProduct } from '../test/fixtures/fulfillment';
import { startTestSmtpServer } from '../test/helpers/smtp-server';
import { startTemporalServer } from '../test/helpers/temporal-server';
import { startWorkerProcess, type WorkerProcess } from '../test/helpers/worker-process';
import { buildWorkflowBundle } from '../worker/workflow-bundle';
import { checkoutStateQuery, workflowIds } from '../workflows/messages';
import { PROJECT_ROOT, startServer, type RunningServer } from './lib/child-server';
import { cpuBetween, cpuSnapshot, postgresPids, type CpuGroups } from './lib/process-cpu';
import { lanes } from './webhook-fanout';

const int = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const COMPLETIONS = int('SCALE_OUT_COMPLETIONS', 200);
const CONNECTIONS = int('SCALE_OUT_CONNECTIONS', 32);
const DURATION = int('SCALE_OUT_DURATION', 10);
const WARMUP = int('SCALE_OUT_WARMUP', 3);
const SHARDS = int('SCALE_OUT_SHARDS', 16);
const POOL_SIZE = int('SCALE_OUT_POOL_SIZE', 10);
const LANES = 32;
const TASK_QUEUE = 'commerce';
const PRODUCTS_IN_LIST = 50;
const RESULTS_FILE = path.join(PROJECT_ROOT, 'bench', 'results', 'scale-out.json');

const log = (line: string) => console.error(`[scale-out] ${line}`);

interface ProcessCpu {
  /** CPU seconds per process over the measured window, by name (api-1, worker-2, temporal, postgres, bench). */
  cpuSeconds: Record<string, number>;
  /** Each process's CPU seconds over the wall-clock seconds: 1.0 is one core busy. */
  cores: Record<string, number>;
}

interface ApiRun extends ProcessCpu {
  processes: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  roundTripsPerRequest: number;
}

interface CompletionRun extends ProcessCpu {
  workers: number;
  sessions: number;
  seconds: number;
  completionsPerSecond: number;
  /** Statements the API processes sent to PostgreSQL per confirm (counted in the processes). */
  apiRoundTripsPerConfirm: number;
  /** Transactions (a statement outside one counts as one) on the application database per completion, API and worker together. */
  appTransactionsPerCompletion: number;
  /** Transactions Temporal committed on its own databases per completion. */
  temporalTransactionsPerCompletion: number;
  /** Workflow executions started per completion (checkout, e-mail, …), from Temporal's visibility store. */
  workflowsPerCompletion: number;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

function cpuFigures(groups: CpuGroups, before: ReturnType<typeof cpuSnapshot>, seconds: number): ProcessCpu {
  const used = cpuBetween(before, cpuSnapshot(groups));
  return {
    cpuSeconds: Object.fromEntries(Object.entries(used).map(([k, v]) => [k, round(v)])),
    cores: Object.fromEntries(Object.entries(used).map(([k, v]) => [k, round(v / seconds)])),
  };
}

async function roundTrips(servers: RunningServer[]): Promise<{ roundTrips: number; requests: number }> {
  const counts = await Promise.all(servers.map((s) => s.roundTrips()));
  return counts.reduce((a, b) => ({ roundTrips: a.roundTrips + b.roundTrips, requests: a.requests + b.requests }), { roundTrips: 0, requests: 0 });
}

/** The same request from CONNECTIONS connections, split evenly over `targets`, all at once. */
async function load(targets: RunningServer[], pathname: string, key: string, duration: number): Promise<autocannon.Result[]> {
  const results = await Promise.all(
    targets.map((t) => autocannon({ url: `${t.baseUrl}${pathname}`, headers: { authorization: `Bearer ${key}` }, connections: CONNECTIONS / targets.length, duration })),
  );
  for (const r of results) {
    if (r.non2xx + r.errors + r.timeouts > 0) throw new Error(`${r.url}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
  }
  return results;
}

async function call(api: RunningServer, method: string, pathname: string, key: string | undefined, body?: unknown): Promise<{ status: number; data?: Record<string, unknown> }> {
  const response = await fetch(`${api.baseUrl}${pathname}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as { data?: Record<string, unknown> };
  return { status: response.status, data: json.data };
}

async function main(): Promise<void> {
  if ((loadavg()[0] ?? 0) > 0.5) log(`warning: 1-minute load average is ${loadavg()[0]?.toFixed(2)} on ${cpus().length} cores; other processes distort the figures`);
  const root = await mkdtemp(path.join(tmpdir(), 'commerce-scale-out-'));
  const stops: Array<() => Promise<unknown>> = [() => rm(root, { recursive: true, force: true })];
  try {
    log('starting embedded PostgreSQL and the production Temporal server');
    const pg = await startEmbeddedPostgres({ dataDir: path.join(root, 'pg'), port: await freePort(), persistent: false });
    stops.push(() => pg.stop());
    await pg.createDatabase('commerce_bench');
    const databaseUrl = pg.url('commerce_bench');
    const sequelize = createDatabase({ url: databaseUrl, poolMax: 2 });
    stops.push(() => sequelize.close());
    await migrateToLatest(sequelize);
    const temporal = await startTemporalServer({ postgresUrl: databaseUrl, numHistoryShards: SHARDS });
    stops.push(() => temporal.stop());
    const bundlePath = path.join(root, 'workflow-bundle.js');
    await writeFile(bundlePath, await buildWorkflowBundle());
    const smtp = await startTestSmtpServer();
    stops.push(() => smtp.close());

    const ws = await createWorkspaceService({ sequelize }).create({ name: 'Scale-out bench', slug: 'scale-out-bench', plan: 'pro' });
    const tenant = { accountId: ws.accountId, environment: 'test' as const };
    const product = await insertSellableProduct(sequelize, tenant, { files: ['bench-ebook.pdf'] });
    for (let i = 1; i < PRODUCTS_IN_LIST; i += 1) await insertSellableProduct(sequelize, tenant, { files: ['a.pdf'] });
    await sequelize.query('ANALYZE');

    const encryptionKey = generateEncryptionKey();
    const env = {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_MAX: String(POOL_SIZE),
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: temporal.namespace,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      ENCRYPTION_KEY: encryptionKey,
      PUBLIC_BASE_URL: 'http://localhost:3000',
      FILE_STORAGE_DIR: path.join(root, 'files'),
      RATE_LIMIT_PER_MINUTE: '100000000',
      PUBLIC_RATE_LIMIT_PER_MINUTE: '100000000',
      SMTP_URL: smtp.url,
      WORKFLOW_BUNDLE_PATH: bundlePath,
      // Settlement comes days after a completion, not inside the measurement (each completion still starts it).
      TEST_SETTLEMENT_DELAY: '2d',
    };
    const started: RunningServer[] = [];
    stops.push(() => Promise.all(started.map((s) => s.stop())));
    const startApi = async (n: number) => {
      const server = await startServer(`api-${n}`, { script: 'api/main.ts', readyPath: '/readyz', env: { ...env, LOG_LEVEL: 'silent' } }, await freePort());
      started.push(server);
      return server;
    };
    // Plain worker processes: the round-trip counter startServer preloads would follow them into the workflow
    // threads, which cannot load TypeScript. Their database work is read from PostgreSQL's statistics instead.
    const workers: { name: string; process: WorkerProcess }[] = [];
    stops.push(() => Promise.all(workers.map((w) => w.process.stop())));
    const startWorker = async (n: number) => {
      workers.push({ name: `worker-${n}`, process: await startWorkerProcess({ ...env, WORKER_HEALTH_PORT: '0' }, { inheritEnv: false }) });
    };
    log('starting two API processes and one worker process');
    const apis = [await startApi(1), await startApi(2)];
    await startWorker(1);
    const shared: CpuGroups = { temporal: () => [temporal.pid], postgres: () => postgresPids(new URL(databaseUrl).port), bench: () => [process.pid] };
    const groups = (): CpuGroups => ({
      ...Object.fromEntries(apis.map((s) => [s.name, () => (s.pid ? [s.pid] : [])])),
      ...Object.fromEntries(workers.map((w) => [w.name, () => [w.process.pid]])),
      ...shared,
    });

    // ------------------------------------------------------------------ API requests/s
    const list = `/api/v1/storefront/products?limit=${PRODUCTS_IN_LIST}`;
    const probe = await call(apis[0]!, 'GET', list, ws.secretKey);
    if (probe.status !== 200) throw new Error(`the product list answered ${probe.status}`);
    const apiRuns: ApiRun[] = [];
    for (const n of [1, 2]) {
      const targets = apis.slice(0, n);
      log(`API: ${n} process(es), ${CONNECTIONS} connections, ${WARMUP}s warm-up, ${DURATION}s measured`);
      await load(targets, list, ws.secretKey, WARMUP);
      const before = cpuSnapshot(groups());
      const trips = await roundTrips(targets);
      const t0 = Date.now();
      const results = await load(targets, list, ws.secretKey, DURATION);
      const seconds = (Date.now() - t0) / 1000;
      const tripsAfter = await roundTrips(targets);
      const requests = results.reduce((sum, r) => sum + r.requests.total, 0);
      apiRuns.push({
        processes: n,
        requestsPerSecond: round(requests / seconds, 1),
        p50Ms: Math.max(...results.map((r) => r.latency.p50)),
        p99Ms: Math.max(...results.map((r) => r.latency.p99)),
        roundTripsPerRequest: round((tripsAfter.roundTrips - trips.roundTrips) / Math.max(1, tripsAfter.requests - trips.requests)),
        ...cpuFigures(groups(), before, seconds),
      });
      log(`API: ${n} process(es): ${apiRuns.at(-1)!.requestsPerSecond} requests/s`);
    }

    // ------------------------------------------------------------------ checkout completions/s
    const client = await connectTemporal({ address: temporal.address, namespace: temporal.namespace, keyRing: createKeyRing(parseEncryptionKey(encryptionKey)) });
    stops.push(() => client.connection.close());
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    stops.push(() => db.end());
    let turn = 0;
    const nextApi = () => apis[turn++ % apis.length]!;

    const preparePaid = async (count: number): Promise<string[]> => {
      const ids: string[] = [];
      await lanes(
        Array.from({ length: count }, (_, i) => i),
        LANES,
        async (n) => {
          const created = await call(nextApi(), 'POST', '/api/v1/payment/checkout-sessions', ws.secretKey, {
            amount: 1_900,
            currency: 'USD',
            description: 'Scale-out ebook',
            customerEmail: `buyer${n}@example.com`,
            productId: product.id,
          });
          if (created.status !== 201) throw new Error(`create answered ${created.status}`);
          const id = created.data!.id as string;
          const paid = await call(nextApi(), 'POST', `/api/v1/payment/checkout-sessions/${id}/pay`, undefined, { paymentMethod: 'va' });
          if (paid.status !== 200) throw new Error(`pay answered ${paid.status}`);
          ids.push(id);
        },
      );
      for (const id of ids) {
        const handle = client.workflow.getHandle(workflowIds.checkoutSession(id));
        for (let tries = 0; ; tries += 1) {
          const state = await handle.query(checkoutStateQuery).catch(() => undefined);
          if (state?.step === 'awaiting_confirmation') break;
          if (tries > 1200) throw new Error(`session ${id} never reached awaiting_confirmation`);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      return ids;
    };
    // Backends report their counts to the statistics a moment after each transaction: callers wait before reading.
    const transactions = async (databases: string[]) =>
      Number((await db.query<{ n: string }>('SELECT sum(xact_commit + xact_rollback)::bigint AS n FROM pg_stat_database WHERE datname = ANY($1)', [databases])).rows[0]!.n);
    const appDatabase = [new URL(databaseUrl).pathname.slice(1)];
    const temporalDatabases = Object.values(temporal.databases);
    const settle = () => new Promise((r) => setTimeout(r, 2_000));
    const workflowsStarted = async (since: Date) => {
      const visibility = new Client({ connectionString: Object.assign(new URL(databaseUrl), { pathname: `/${temporal.databases.visibility}` }).toString() });
      await visibility.connect();
      try {
        return (await visibility.query<{ n: number }>('SELECT count(*)::int AS n FROM executions_visibility WHERE start_time >= $1', [since])).rows[0]!.n;
      } finally {
        await visibility.end();
      }
    };

    const completionRuns: CompletionRun[] = [];
    for (const n of [1, 2]) {
      if (workers.length < n) await startWorker(n);
      log(`checkout: warm-up and ${COMPLETIONS} paid sessions through the API (${n} worker(s))`);
      const warm = await preparePaid(LANES);
      await lanes(warm, LANES, async (id) => void (await call(nextApi(), 'POST', `/api/v1/payment/checkout-sessions/${id}/confirm`, ws.secretKey)));
      const ids = await preparePaid(COMPLETIONS);
      await waitFulfilled(db, warm);
      await settle();
      const before = cpuSnapshot(groups());
      const trips = await roundTrips(apis);
      const [appBefore, temporalBefore] = [await transactions(appDatabase), await transactions(temporalDatabases)];
      const since = new Date();
      const t0 = Date.now();
      log(`checkout: ${COMPLETIONS} sessions confirmed at once, ${n} worker(s)`);
      await lanes(ids, LANES, async (id) => {
        const confirmed = await call(nextApi(), 'POST', `/api/v1/payment/checkout-sessions/${id}/confirm`, ws.secretKey);
        if (confirmed.status !== 200) throw new Error(`confirm answered ${confirmed.status}`);
      });
      const last = await waitFulfilled(db, ids);
      const seconds = (last - t0) / 1000;
      const cpu = cpuFigures(groups(), before, seconds);
      const tripsAfter = await roundTrips(apis);
      await settle();
      completionRuns.push({
        workers: n,
        sessions: ids.length,
        seconds: round(seconds, 1),
        completionsPerSecond: round(ids.length / seconds, 1),
        apiRoundTripsPerConfirm: round((tripsAfter.roundTrips - trips.roundTrips) / ids.length, 1),
        appTransactionsPerCompletion: round(((await transactions(appDatabase)) - appBefore) / ids.length, 1),
        temporalTransactionsPerCompletion: round(((await transactions(temporalDatabases)) - temporalBefore) / ids.length, 1),
        workflowsPerCompletion: round((await workflowsStarted(since)) / ids.length, 2),
        ...cpu,
      });
      log(`checkout: ${n} worker(s): ${completionRuns.at(-1)!.completionsPerSecond} completions/s`);
    }
    for (const s of apis) s.assertAlive();

    const result = { at: new Date().toISOString(), cores: cpus().length, loadAverageAtEnd: loadavg(), historyShards: SHARDS, poolSize: POOL_SIZE, api: apiRuns, checkout: completionRuns };
    await writeFile(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);
    console.log(render(apiRuns, completionRuns));
    console.log(`results written to ${path.relative(process.cwd(), RESULTS_FILE)}`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => log(`cleanup step failed: ${String(err)}`));
  }
}

/** When the last of `ids` was fulfilled (fulfilled_at, the database's clock), once every one is. */
async function waitFulfilled(db: Client, ids: string[]): Promise<number> {
  const deadline = Date.now() + 900_000;
  for (;;) {
    const { rows } = await db.query<{ pending: number; last: Date | null }>(
      'SELECT count(*) FILTER (WHERE fulfilled_at IS NULL)::int AS pending, max(fulfilled_at) AS last FROM checkout_sessions WHERE id = ANY($1)',
      [ids],
    );
    if (rows[0]!.pending === 0) return rows[0]!.last!.getTime();
    if (Date.now() > deadline) throw new Error(`${rows[0]!.pending} sessions still unfulfilled after 15 min`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function render(apiRuns: ApiRun[], completionRuns: CompletionRun[]): string {
  const cores = (c: Record<string, number>) =>
    Object.entries(c)
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ');
  return [
    'API (GET product list, 50 rows):',
    ...apiRuns.map((r) => `  ${r.processes} process(es): ${r.requestsPerSecond} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, ${r.roundTripsPerRequest} DB round trips/request; cores: ${cores(r.cores)}`),
    'Checkout completions (confirmed at once):',
    ...completionRuns.map(
      (r) =>
        `  ${r.workers} worker(s): ${r.completionsPerSecond} completions/s (${r.sessions} in ${r.seconds} s), ${r.apiRoundTripsPerConfirm} API statements per confirm, ` +
        `${r.appTransactionsPerCompletion} app DB transactions, ` +
        `${r.temporalTransactionsPerCompletion} Temporal DB transactions, ${r.workflowsPerCompletion} workflows per completion; cores: ${cores(r.cores)}`,
    ),
  ].join('\n');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`[scale-out] FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
