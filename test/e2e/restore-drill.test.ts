import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createDatabase } from '../../db/connection';
import { CheckoutSession } from '../../db/models';
import { planCheckoutFulfillment } from '../../domain/checkout/fulfillment';
import { createWorkspaceService, type CreatedWorkspace } from '../../domain/workspaces/service';
import { freePort } from '../../scripts/lib/free-port';
import { workflowIds } from '../../workflows/messages';
import { appliedSteps, eventsOfSession, insertSellableProduct } from '../fixtures/fulfillment';
import { CHECKOUT_SESSIONS, minimalSession, PUBLIC_BASE_URL } from '../helpers/checkout';
import { http } from '../helpers/context';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type TestCertificates } from '../helpers/https-receiver';
import { usePrivateDatabase } from '../helpers/private-database';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtp-server';
import { startTemporalServer, type TemporalServer } from '../helpers/temporal-server';
import { testDataConverter } from '../helpers/temporal-codec';
import { waitFor } from '../helpers/wait';
import { compiledBuild, type CompiledBuild } from '../helpers/compiled-build';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

/**
 * The restore drill of docs/production.md ("Backups and restore"), run as an operator would: checkouts in every
 * phase on the production Temporal server (PostgreSQL persistence) with the api and the worker as processes, an
 * online backup by scripts/backup.sh while one checkout's fulfillment is held mid-way, then the disaster (processes
 * killed, the Temporal server stopped, all three databases dropped), scripts/restore.sh into empty databases, and
 * Temporal, the worker and the api started again on them. Every checkout must resume where the backup left it and
 * complete exactly once: one fulfillment, one receipt at the SMTP server, one webhook delivery. The durations of each
 * stage go to test-artifacts/restore-drill.json (gitignored), the figures docs/production.md reports.
 */
jest.setTimeout(300_000);

const run = promisify(execFile);
const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
const NAMESPACE = 'commerce';
const TASK_QUEUE = 'commerce';
const HOOK_PATH = '/drill';
/** The expiring session's deadline: after the backup is taken, long before the drill ends. */
const EXPIRY_MS = 40_000;
/** Time for a duplicate e-mail or webhook to arrive, had the restore caused one. */
const QUIET_MS = 3_000;
const ARTIFACT = path.resolve(__dirname, '../../test-artifacts/restore-drill.json');

/** Milliseconds of `work`, recorded under `stage`. */
const timings: Record<string, number> = {};
async function timed<T>(stage: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    timings[stage] = Math.round(performance.now() - started);
  }
}

usePrivateDatabase('restore_drill');

let certs: TestCertificates;
let receiver: HttpsReceiver;
let smtp: TestSmtpServer;
let temporal: TemporalServer | undefined;
let sequelize: Sequelize | undefined;
let backupDir: string;
let api: { baseUrl: string; process: WorkerProcess } | undefined;
let worker: WorkerProcess | undefined;
/** The API and worker run as production runs them, from dist/. */
let build: CompiledBuild | undefined;
/** The connection that holds a fulfillment's balance step, until the disaster. */
let holder: PgClient | undefined;

/** A database of the suite's PostgreSQL, by name. */
function databaseUrl(name: string): string {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}
const appDatabase = () => new URL(process.env.DATABASE_URL!).pathname.slice(1);

/** What backup.sh and restore.sh are given: the three databases' URLs, and the PostgreSQL 15 client tools. */
function scriptEnv(): NodeJS.ProcessEnv {
  const pgBin = '/usr/lib/postgresql/15/bin';
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: process.env.DATABASE_URL,
    TEMPORAL_DATABASE_URL: databaseUrl(temporal!.databases.temporal),
    TEMPORAL_VISIBILITY_DATABASE_URL: databaseUrl(temporal!.databases.visibility),
    ...(existsSync(path.join(pgBin, 'pg_dump')) ? { PG_BIN: pgBin } : {}),
  };
}

async function startProcesses(): Promise<void> {
  const env = {
    DATABASE_URL: process.env.DATABASE_URL!,
    DATABASE_POOL_MAX: '5',
    TEMPORAL_ADDRESS: temporal!.address,
    TEMPORAL_NAMESPACE: NAMESPACE,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    PUBLIC_BASE_URL,
    SMTP_URL: smtp.url,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    NODE_EXTRA_CA_CERTS: certs.caFile,
  };
  const port = await freePort();
  // Both at once, and both kept even when one fails to start, so afterAll stops the other.
  const [started, apiProcess] = await Promise.allSettled([
    startWorkerProcess({ ...env, WORKFLOW_BUNDLE_PATH: build!.bundle }, { script: build!.worker }),
    startWorkerProcess({ ...env, PORT: String(port) }, { script: build!.api, startedMessage: 'api listening' }),
  ]);
  if (started.status === 'fulfilled') worker = started.value;
  if (apiProcess.status === 'fulfilled') api = { baseUrl: `http://127.0.0.1:${port}`, process: apiProcess.value };
  for (const result of [started, apiProcess]) if (result.status === 'rejected') throw result.reason;
}

const describeProcesses = () => `--- api ---\n${api?.process.output()}\n--- worker ---\n${worker?.output()}\n--- temporal ---\n${temporal?.output()}`;
const until = <T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 120_000) =>
  waitFor(probe, { timeoutMs, intervalMs: 250, describe: () => `${what}\n${describeProcesses()}` });

async function dropDatabase(name: string): Promise<void> {
  const admin = new PgClient({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

// Long enough to compile dist/ when the checkout has none (minutes on two busy cores).
beforeAll(async () => {
  certs = await createTestCertificates();
  receiver = await startHttpsReceiver(certs);
  smtp = await startTestSmtpServer();
  temporal = await startTemporalServer({ postgresUrl: process.env.DATABASE_URL!, namespace: NAMESPACE });
  sequelize = createDatabase({ url: process.env.DATABASE_URL!, poolMax: 2 });
  backupDir = await mkdtemp(path.join(tmpdir(), 'restore-drill-'));
  build = await compiledBuild();
  await startProcesses();
}, 600_000);
afterAll(async () => {
  await holder?.end().catch(() => undefined);
  await api?.process.stop();
  await worker?.stop();
  await sequelize?.close();
  await temporal?.stop();
  await smtp?.close();
  await receiver?.close();
  if (backupDir) await rm(backupDir, { recursive: true, force: true });
  await build?.cleanup();
});

type Phase = 'completed' | 'fulfilling' | 'paid' | 'awaiting' | 'expiring';

describe('backup, destroy, restore: checkouts in flight resume on the restored databases', () => {
  it('completes each in-flight checkout exactly once, keeps the completed one completed and fires the expiry timer', async () => {
    const ws: CreatedWorkspace = await createWorkspaceService({ sequelize: sequelize! }).create({ name: 'Drill', slug: `drill-${process.pid}`, plan: 'pro' });
    const product = await insertSellableProduct(sequelize!, ws);
    expect((await http(api!.baseUrl, 'POST', '/api/v1/payment/webhook-endpoints', { key: ws.secretKey, body: { url: receiver.url(HOOK_PATH), events: ['checkout.completed'] } })).status).toBe(201);

    const sessions = new Map<string, { phase: Phase; email: string }>();
    const create = async (phase: Phase, extra: Record<string, unknown> = {}): Promise<string> => {
      const email = `buyer${sessions.size + 1}@example.com`;
      const res = await http<{ data: { id: string } }>(api!.baseUrl, 'POST', CHECKOUT_SESSIONS, {
        key: ws.secretKey,
        body: { ...minimalSession, customerEmail: email, productId: product.id, ...extra },
      });
      expect(res.status).toBe(201);
      sessions.set(res.body.data.id, { phase, email });
      return res.body.data.id;
    };
    const pay = async (id: string) => expect((await http(api!.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${id}/pay`, { body: { paymentMethod: 'va' } })).status).toBe(200);
    const confirm = async (id: string) => expect((await http(api!.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${id}/confirm`, { key: ws.secretKey })).status).toBe(200);
    const receipts = (id: string) => smtp.received.filter((m) => m.envelope.to.includes(sessions.get(id)!.email));
    const webhooks = (id: string) =>
      receiver.received.filter((r) => r.path === HOOK_PATH && (JSON.parse(r.rawBody) as { data: { id: string } }).data.id === id);
    const fulfilled = async (id: string) => (await CheckoutSession.findByPk(id))?.fulfilledAt != null;

    // Completed before the backup: fulfilled, its receipt and its webhook delivered.
    const completed = await create('completed');
    await pay(completed);
    await confirm(completed);
    await until(async () => (await fulfilled(completed)) && receipts(completed).length === 1 && webhooks(completed).length === 1, 'the first checkout fulfilled, mailed and delivered');

    // Confirmed, its fulfillment held mid-way: the delivery step applied, the balance step waiting on the balance row.
    holder = new PgClient({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query(`SELECT 1 FROM balances WHERE account_id = $1 AND environment = 'test' FOR UPDATE`, [ws.accountId]);
    const fulfilling = await create('fulfilling');
    await pay(fulfilling);
    await confirm(fulfilling);
    await until(async () => {
      const [waiting] = await sequelize!.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`, {
        type: QueryTypes.SELECT,
      });
      return (await appliedSteps(sequelize!, fulfilling)).join() === 'delivery:1' && waiting!.n > 0;
    }, 'the fulfillment held at its balance step');

    const paid = [await create('paid'), await create('paid')];
    for (const id of paid) await pay(id);
    const awaiting = [await create('awaiting'), await create('awaiting')];
    const expiring = await create('expiring', { expiresAt: new Date(Date.now() + EXPIRY_MS).toISOString() });
    // Every workflow started, so Temporal's copy holds them all.
    await until(async () => {
      const [pending] = await sequelize!.query<{ n: number }>('SELECT count(*)::int AS n FROM workflow_starts WHERE started_at IS NULL', { type: QueryTypes.SELECT });
      return pending!.n === 0;
    }, 'every recorded start sent');

    // The backup, online: the api and the worker run, one fulfillment is in progress.
    const backup = await timed('backupMs', () => run('bash', [path.join(PROJECT_ROOT, 'scripts', 'backup.sh'), backupDir], { env: scriptEnv() }));
    expect(backup.stderr).toContain('wrote');

    // The disaster: processes die, the Temporal server goes, and so do all three databases.
    await api!.process.kill();
    await worker!.kill();
    await holder.end();
    holder = undefined;
    await sequelize!.close();
    await temporal!.stop();
    await dropDatabase(appDatabase());
    const lost = new PgClient({ connectionString: databaseUrl('postgres') });
    await lost.connect();
    const { rows } = await lost.query('SELECT datname FROM pg_database WHERE datname = ANY($1)', [[appDatabase(), temporal!.databases.temporal, temporal!.databases.visibility]]);
    await lost.end();
    expect(rows).toEqual([]);

    const sizes = Object.fromEntries(
      await Promise.all(['commerce', 'temporal', 'temporal_visibility'].map(async (name) => [name, (await stat(path.join(backupDir, `${name}.dump`))).size] as const)),
    );
    const restored = await timed('restoreMs', () => run('bash', [path.join(PROJECT_ROOT, 'scripts', 'restore.sh'), backupDir], { env: scriptEnv() }));
    expect(restored.stderr).toMatch(/marked pending again, to be sent once more by the worker's relays: [1-9]\d* workflow starts, [1-9]\d* outbox events/);

    // The application database is the backup's: every checkout in the phase it had.
    sequelize = createDatabase({ url: process.env.DATABASE_URL!, poolMax: 2 });
    const statusOf = async (id: string) => (await CheckoutSession.findByPk(id))!.status;
    expect(await fulfilled(completed)).toBe(true);
    expect(await statusOf(fulfilling)).toBe('completed');
    expect(await fulfilled(fulfilling)).toBe(false);
    expect(await appliedSteps(sequelize, fulfilling)).toEqual(['delivery:1']);
    for (const id of paid) expect(await statusOf(id)).toBe('pending_review');
    for (const id of [...awaiting, expiring]) expect(await statusOf(id)).toBe('open');

    // Temporal on its restored databases, then the worker and the api, as after a real restore.
    const databases = temporal!.databases;
    temporal = await timed('temporalStartMs', () => startTemporalServer({ postgresUrl: process.env.DATABASE_URL!, namespace: NAMESPACE, numHistoryShards: temporal!.numHistoryShards, databases }));
    await timed('workerAndApiStartMs', startProcesses);
    const resumed = performance.now();

    for (const id of paid) await confirm(id);
    for (const id of awaiting) {
      await pay(id);
      await confirm(id);
    }
    const toComplete = [completed, fulfilling, ...paid, ...awaiting];
    await until(async () => (await Promise.all(toComplete.map(fulfilled))).every(Boolean) && (await statusOf(expiring)) === 'expired', 'every checkout fulfilled and the expiring one expired');
    await until(async () => toComplete.every((id) => receipts(id).length > 0 && webhooks(id).length > 0), 'every receipt and webhook');
    timings.allCompletedAfterStartMs = Math.round(performance.now() - resumed);
    await new Promise((r) => setTimeout(r, QUIET_MS));

    const connection = await Connection.connect({ address: temporal.address });
    try {
      const client = new Client({ connection, namespace: NAMESPACE, dataConverter: testDataConverter() });
      for (const id of toComplete) {
        const session = (await CheckoutSession.findByPk(id))!;
        expect(await client.workflow.getHandle(workflowIds.checkoutSession(id)).result()).toBe('fulfilled');
        expect(await appliedSteps(sequelize, id)).toEqual(planCheckoutFulfillment(session));
        expect((await eventsOfSession(sequelize, id)).filter((e) => e.type === 'checkout.completed')).toHaveLength(1);
        const { phase } = sessions.get(id)!;
        expect({ id, phase, receipts: receipts(id).length, webhooks: webhooks(id).length }).toEqual({ id, phase, receipts: 1, webhooks: 1 });
      }
      expect(await client.workflow.getHandle(workflowIds.checkoutSession(expiring)).result()).toBe('expired');
    } finally {
      await connection.close();
    }
    // Nothing else was sent: one receipt and one webhook per completed checkout, in all.
    expect(smtp.received).toHaveLength(toComplete.length);
    expect(receiver.received.filter((r) => r.path === HOOK_PATH)).toHaveLength(toComplete.length);

    const redriven = /relays: (\d+) workflow starts, (\d+) outbox events/.exec(restored.stderr)!;
    await mkdir(path.dirname(ARTIFACT), { recursive: true });
    await writeFile(
      ARTIFACT,
      `${JSON.stringify({ ranAt: new Date().toISOString(), dumpBytes: sizes, redriven: { workflowStarts: Number(redriven[1]), outboxEvents: Number(redriven[2]) }, timings }, null, 2)}\n`,
    );
  });
});
