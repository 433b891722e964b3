/**
 * `npm start`: the whole stack on one machine with embedded defaults.
 *
 *   - DATA_DIR (default ./.data) holds everything that must survive a restart: the embedded PostgreSQL
 *     cluster, the Temporal dev server's sqlite database, uploaded files, the generated encryption key
 *     and the demo workspace's keys;
 *   - PostgreSQL: DATABASE_URL, or an embedded server on 127.0.0.1:$EMBEDDED_POSTGRES_PORT (5433);
 *   - Temporal: TEMPORAL_ADDRESS, or the Temporal CLI dev server on 127.0.0.1:$TEMPORAL_DEV_PORT (7233)
 *     with its Web UI on $TEMPORAL_UI_PORT (8233);
 *   - e-mail: SMTP_URL, or Mailpit (a mail catcher with a web inbox) on 127.0.0.1:$MAILPIT_SMTP_PORT (1025),
 *     inbox on $MAILPIT_UI_PORT (8025), keeping its messages in $DATA_DIR/mailpit.db;
 *   - the payment module's provider: PAYMENT_PROVIDER_BASE_URL, or the built-in sandbox provider (speaking
 *     Xendit's API, with its hosted invoice page) on 127.0.0.1:$PAYMENT_SANDBOX_PORT (3100), in memory;
 *   - migrations, a demo workspace, then the API (api/main.ts) and a worker (worker/main.ts) as child
 *     processes, their output prefixed with [api] / [worker].
 *
 * Every process of the stack is supervised (scripts/lib/supervisor.ts): a crashed API or worker, PostgreSQL
 * or Temporal dev server is reported on the console and started again with backoff (same data, same port).
 * Ctrl-C (SIGINT), SIGTERM or SIGHUP stops the API and worker (which drains its running activities), then Mailpit,
 * then Temporal, then PostgreSQL; those three run in sessions of their own, so a terminal's Ctrl-C stops them only then.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { Connection } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { TypedSearchAttributes } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Sequelize } from 'sequelize';
import { createDatabase } from '../db/connection';
import { EmbeddedPostgresError, startEmbeddedPostgres } from '../db/embedded-postgres';
import { migrateToLatest } from '../db/migrate';
import { Account, ApiKey } from '../db/models';
import { createUserService, findUserByEmail, verifyPassword } from '../domain/users';
import { createWorkspaceService, type CreatedWorkspace } from '../domain/workspaces';
import { hashKey } from '../lib/api-key-secrets';
import { ConfigError, loadConfig, requireKeyRing, type Config } from '../lib/config';
import { generateEncryptionKey, parseEncryptionKey } from '../lib/crypto-box';
import { createTemporalClient } from '../lib/temporal-client';
import { sandboxSecretKey, startPaymentSandbox, type PaymentSandbox } from '../lib/payment-provider/sandbox';
import { SEARCH_ATTRIBUTES } from '../workflows/messages';
import { demoStoreBanner, ensureDemoStore } from './lib/demo-store';
import { ensureLocalCa, trustFile } from './lib/local-ca';
import { isProcessAlive, readStackState, removeStackState, tsxNodeArgs, writeStackState } from './lib/local-stack';
import { describeExit, runningChild, Supervisor, type Running } from './lib/supervisor';
import { mailpitExecutable, provisionTemporalBinaries, temporalCliExecutable } from './lib/temporal-binaries';
import { localTraceViewer } from './lib/trace-viewer';

const ROOT = path.resolve(__dirname, '..');
const DATABASE_NAME = 'commerce';
const DEMO_SLUG = 'demo';
const DEMO_NAME = 'Demo Store';
const API_READY_TIMEOUT_MS = 90_000;
// The worker bundles workflows/ with webpack before it polls; a cold machine needs a while.
const WORKER_READY_TIMEOUT_MS = 180_000;
const CHILD_STOP_TIMEOUT_MS = 15_000;
const TEARDOWN_STEP_TIMEOUT_MS = 20_000;
const TEMPORAL_READY_TIMEOUT_MS = 60_000;
const MAILPIT_READY_TIMEOUT_MS = 30_000;
/** The API's metrics port under `npm start` when METRICS_PORT is unset (OpenTelemetry's Prometheus exporter port). */
const DEFAULT_METRICS_PORT = 9464;

const log = (message: string) => process.stderr.write(`[start] ${message}\n`);

// ---------------------------------------------------------------------------------------------------
// Stop requests: a signal, or the API or worker never becoming ready. Start-up checks `stopRequested`
// between steps.

let stopRequested: { code: number; reason: string } | null = null;
let wakeMain: () => void = () => undefined;
const stopped = new Promise<void>((resolve) => {
  wakeMain = resolve;
});
/** Every supervisor of the stack: a stop request ends their restarts at once, before the ordered stop. */
const supervisors: Supervisor[] = [];
/** The API and worker processes alive now, for a second Ctrl-C. */
const liveChildren = new Set<ChildProcess>();

function requestStop(code: number, reason: string): void {
  if (stopRequested) return;
  stopRequested = { code, reason };
  for (const supervisor of supervisors) supervisor.stopRestarting();
  log(`${reason}; stopping…`);
  wakeMain();
}

let firstSignalAt = 0;

function onSignal(signal: NodeJS.Signals): void {
  if (!stopRequested) {
    firstSignalAt = Date.now();
    return requestStop(0, `received ${signal}`);
  }
  // A terminal's Ctrl-C reaches this process twice (directly, and relayed by the tsx wrapper of `npm start`);
  // only a signal a while after the first is a user pressing Ctrl-C again to stop waiting.
  if (Date.now() - firstSignalAt < 2_000) return;
  log(`received ${signal} again; killing the api and worker now`);
  for (const child of liveChildren) child.kill('SIGKILL');
}

// ---------------------------------------------------------------------------------------------------
// Settings that only `npm start` reads (the rest comes from lib/config.ts).

interface StartSettings {
  postgresPort: number;
  temporalPort: number;
  temporalUiPort: number;
  mailpitSmtpPort: number;
  mailpitUiPort: number;
  paymentSandboxPort: number;
}

function readStartSettings(env: NodeJS.ProcessEnv): StartSettings {
  const problems: string[] = [];
  const port = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1 || value > 65535) problems.push(`${name}: must be a port number from 1 to 65535`);
    return value;
  };
  const settings = {
    postgresPort: port('EMBEDDED_POSTGRES_PORT', 5433),
    temporalPort: port('TEMPORAL_DEV_PORT', 7233),
    temporalUiPort: port('TEMPORAL_UI_PORT', 8233),
    mailpitSmtpPort: port('MAILPIT_SMTP_PORT', 1025),
    mailpitUiPort: port('MAILPIT_UI_PORT', 8025),
    paymentSandboxPort: port('PAYMENT_SANDBOX_PORT', 3100),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

/** Fails early with a clear message instead of a server's own bind error deep in its log. */
async function assertPortsFree(ports: { port: number; variable: string; what: string }[]): Promise<void> {
  const busy: string[] = [];
  for (const { port, variable, what } of ports) {
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (!free) busy.push(`${variable}: port ${port} (${what}) is already in use; stop what uses it or set ${variable} to another port`);
  }
  if (busy.length > 0) throw new ConfigError(busy);
}

/** ENCRYPTION_KEY from the environment, else $DATA_DIR/encryption.key (generated on first run). */
function loadOrCreateEncryptionKey(dataDir: string): string {
  const fromEnv = process.env.ENCRYPTION_KEY;
  if (fromEnv) return fromEnv; // already validated by loadConfig
  const file = path.join(dataDir, 'encryption.key');
  try {
    fs.writeFileSync(file, `${generateEncryptionKey()}\n`, { mode: 0o600, flag: 'wx' });
    log(`generated an encryption key in ${file} (keep it: stored secrets cannot be read without it)`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const key = fs.readFileSync(file, 'utf8').trim();
  try {
    parseEncryptionKey(key);
  } catch (err) {
    throw new ConfigError([`ENCRYPTION_KEY: ${file} ${(err as Error).message}`]);
  }
  return key;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000}s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------------
// The demo workspace.

/**
 * The demo workspace's four keys are kept in $DATA_DIR/demo-workspace.json (mode 0600) so that every
 * `npm start` can print them again: the database stores only hashes, and a local demo that forgets its
 * keys after the first run is no demo. They are keys of a local, throwaway workspace; real workspaces'
 * keys are shown once and never written anywhere.
 */
type DemoWorkspace = { kind: 'keys'; workspace: CreatedWorkspace; created: boolean } | { kind: 'no-keys'; accountId: string; reason: string };

async function ensureDemoWorkspace(sequelize: Sequelize, dataDir: string): Promise<DemoWorkspace> {
  const file = path.join(dataDir, 'demo-workspace.json');
  let stored: CreatedWorkspace | null = null;
  try {
    stored = JSON.parse(fs.readFileSync(file, 'utf8')) as CreatedWorkspace;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log(`ignoring unreadable ${file}: ${(err as Error).message}`);
  }
  if (stored?.accountId && (await Account.findByPk(stored.accountId))) {
    const key = await ApiKey.findOne({ where: { keyHash: hashKey(stored.secretKey) } });
    if (key && !key.revokedAt) return { kind: 'keys', workspace: stored, created: false };
    return { kind: 'no-keys', accountId: stored.accountId, reason: `the demo test secret key kept in ${file} has been revoked` };
  }
  const existing = await Account.findOne({ where: { slug: DEMO_SLUG } });
  if (existing) {
    return { kind: 'no-keys', accountId: existing.id, reason: `the demo workspace's keys were printed when it was created (${file} is missing)` };
  }
  const workspace = await createWorkspaceService({ sequelize }).create({ name: DEMO_NAME, slug: DEMO_SLUG, plan: 'pro' });
  fs.writeFileSync(file, `${JSON.stringify(workspace, null, 2)}\n`, { mode: 0o600 });
  return { kind: 'keys', workspace, created: true };
}

// ---------------------------------------------------------------------------------------------------
// Children.

function pipeWithPrefix(from: Readable | null, to: Writable, prefix: string): void {
  if (!from) return;
  readline.createInterface({ input: from, crlfDelay: Infinity }).on('line', (line) => to.write(`${prefix}${line}\n`));
}

/**
 * A server of the stack (Temporal, Mailpit) in a session of its own: a terminal's Ctrl-C reaches the whole foreground
 * process group at once, and these must outlive it until the worker has drained (the ordered stop in main). If this
 * process ends without that stop, it takes them along.
 */
function spawnServer(command: string, args: string[]): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  child.once('close', () => process.off('exit', killOnExit));
  return child;
}

/** Starts the API or the worker as a child Node process, its output prefixed with its name. */
function spawnNodeChild(name: string, entry: string, env: NodeJS.ProcessEnv): { child: ChildProcess; running: Running } {
  const child = spawn(process.execPath, tsxNodeArgs(path.join(ROOT, entry)), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  pipeWithPrefix(child.stdout, process.stdout, `[${name}] `);
  pipeWithPrefix(child.stderr, process.stderr, `[${name}] `);
  liveChildren.add(child);
  const running = runningChild(child, CHILD_STOP_TIMEOUT_MS, () => log(`${name} did not stop within ${CHILD_STOP_TIMEOUT_MS / 1000}s; killing it`));
  void running.exited.then(() => liveChildren.delete(child));
  return { child, running };
}

/**
 * The Temporal CLI dev server as a child of this process, so that its death is seen (and it is restarted)
 * rather than left a zombie. Arguments as @temporalio/testing's createLocal passes them.
 */
async function startTemporalDevServer(cli: string, options: { port: number; uiPort: number; dbFilename: string; namespace: string; uiCodecEndpoint: string }): Promise<Running> {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--ui-port',
    String(options.uiPort),
    '--ui-codec-endpoint',
    options.uiCodecEndpoint,
    '--db-filename',
    options.dbFilename,
    '--namespace',
    options.namespace,
    // Registering an attribute the sqlite db already has is accepted, so every start may pass them.
    ...SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=${TypedSearchAttributes.toMetadataType(key.type)}`]),
    '--log-format',
    'pretty',
    '--log-level',
    'error',
    '--dynamic-config-value',
    'frontend.enableServerVersionCheck=false',
    '--dynamic-config-value',
    'frontend.enableUpdateWorkflowExecution=true',
    '--dynamic-config-value',
    'frontend.enableUpdateWorkflowExecutionAsyncAccepted=true',
  ];
  const child = spawnServer(cli, args);
  pipeWithPrefix(child.stdout, process.stdout, '[temporal] ');
  pipeWithPrefix(child.stderr, process.stderr, '[temporal] ');
  const running = runningChild(child, CHILD_STOP_TIMEOUT_MS);
  let exited = false;
  void running.exited.then(() => (exited = true));
  const deadline = Date.now() + TEMPORAL_READY_TIMEOUT_MS;
  for (;;) {
    try {
      const connection = await Connection.connect({ address: `127.0.0.1:${options.port}`, connectTimeout: 1_000 });
      await connection.close();
      return running;
    } catch (err) {
      if (exited) throw new Error(`the Temporal dev server ${describeExit(await running.exited)} during start-up (see [temporal] lines above)`);
      if (Date.now() > deadline) {
        await running.stop();
        throw new Error(`the Temporal dev server did not answer within ${TEMPORAL_READY_TIMEOUT_MS / 1000}s: ${(err as Error).message}`);
      }
      await sleep(250);
    }
  }
}

/**
 * Mailpit as a supervised child: SMTP and web inbox on loopback only, its messages in `database` so the inbox
 * survives a restart. No version check (it would call out to the internet).
 */
async function startMailpit(executable: string, options: { smtpPort: number; uiPort: number; database: string }): Promise<Running> {
  const args = ['--smtp', `127.0.0.1:${options.smtpPort}`, '--listen', `127.0.0.1:${options.uiPort}`, '--database', options.database, '--disable-version-check', '--quiet'];
  const child = spawnServer(executable, args);
  pipeWithPrefix(child.stdout, process.stdout, '[mailpit] ');
  pipeWithPrefix(child.stderr, process.stderr, '[mailpit] ');
  const running = runningChild(child, CHILD_STOP_TIMEOUT_MS);
  let exited = false;
  void running.exited.then(() => (exited = true));
  const deadline = Date.now() + MAILPIT_READY_TIMEOUT_MS;
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${options.uiPort}/readyz`, { signal: AbortSignal.timeout(1_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return running;
    if (exited) throw new Error(`Mailpit ${describeExit(await running.exited)} during start-up (see [mailpit] lines above)`);
    if (Date.now() > deadline) {
      await running.stop();
      throw new Error(`Mailpit did not answer within ${MAILPIT_READY_TIMEOUT_MS / 1000}s`);
    }
    await sleep(250);
  }
}

/** Waits until `check` answers true; false when a stop was requested or the time ran out. */
async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!stopRequested && Date.now() < deadline) {
    if (await check().catch(() => false)) return true;
    await sleep(250);
  }
  return false;
}

async function apiIsReady(port: number): Promise<boolean> {
  const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(3_000) });
  await response.arrayBuffer();
  return response.status === 200;
}

/** True once the worker process (identity `<pid>@host`) polls the workflow task queue. */
async function workerIsPolling(connection: Connection, config: Config, pid: number): Promise<boolean> {
  const response = await connection.workflowService.describeTaskQueue({
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: { name: config.TEMPORAL_TASK_QUEUE, kind: proto.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (response.pollers ?? []).some((p) => p.identity?.startsWith(`${pid}@`));
}

function redactPassword(url: string): string {
  return url.replace(/^((?:postgres(?:ql)?|smtps?):\/\/[^:/@]+):[^@]*@/, '$1:***@');
}

/** What the banner says about e-mail: the inbox of the local Mailpit, or where SMTP_URL sends. */
type MailSetup = { kind: 'mailpit'; inbox: string; smtp: string } | { kind: 'smtp'; url: string } | { kind: 'none' };

function mailLine(mail: MailSetup): string {
  if (mail.kind === 'mailpit') return `${mail.inbox}   (Mailpit: every e-mail the stack sends; SMTP ${mail.smtp})`;
  if (mail.kind === 'smtp') return `sent through ${redactPassword(mail.url)} (SMTP_URL)`;
  return '(none: no SMTP_URL and no Mailpit; e-mails wait, retried for a day, until the worker has SMTP_URL)';
}

function printBanner(lines: {
  apiBase: string;
  temporalUi: string | null;
  temporalAddress: string;
  mail: MailSetup;
  payments: string;
  workerHealth: string;
  metrics: string;
  databaseUrl: string;
  dataDir: string;
  demo: DemoWorkspace;
  demoOwner: DemoOwner;
  store: string[];
}): void {
  const { apiBase, demo } = lines;
  const rule = '─'.repeat(78);
  const out: string[] = [
    '',
    rule,
    '  Commerce stack is up. Ctrl-C stops everything.',
    '',
    `  API            ${apiBase}/api`,
    `  API docs       ${apiBase}/api/docs   (OpenAPI JSON: ${apiBase}/api/openapi.json)`,
    `  Dashboard      ${apiBase}/dashboard`,
    `  Temporal UI    ${lines.temporalUi ? `${lines.temporalUi}   (payloads decrypted through the API's /codec)` : `(external Temporal at ${lines.temporalAddress}: use its own UI)`}`,
    `  Temporal       ${lines.temporalAddress}`,
    `  Mail inbox     ${mailLine(lines.mail)}`,
    `  Payments       ${lines.payments}`,
    `  Worker health  ${lines.workerHealth}`,
    `  Metrics        ${lines.metrics}`,
    `  PostgreSQL     ${redactPassword(lines.databaseUrl)}`,
    `  Data dir       ${lines.dataDir}`,
    '',
  ];
  let exampleKey = 'sk_test_…';
  if (demo.kind === 'keys') {
    exampleKey = demo.workspace.secretKey;
    out.push(
      `  Demo workspace "${DEMO_NAME}" (${demo.workspace.accountId}, slug ${DEMO_SLUG})${demo.created ? ', created now' : ''}; test keys:`,
      `    secret       ${demo.workspace.secretKey}`,
      `    publishable  ${demo.workspace.publishableKey}`,
      `    (live keys: ${path.join(lines.dataDir, 'demo-workspace.json')})`,
    );
  } else {
    out.push(
      `  Demo workspace ${demo.accountId}: ${demo.reason}.`,
      '  Mint a new test secret key with:',
      `    npm run cli -- keys create --account ${demo.accountId} --name "Local" --environment test --access secret`,
    );
  }
  const owner = lines.demoOwner;
  if (owner.kind === 'password') out.push(`  Dashboard sign-in: ${owner.email} / ${owner.password}`);
  else out.push(`  Dashboard user ${owner.email}: ${owner.reason}.`);
  out.push('', ...lines.store);
  out.push(
    '',
    '  Try:',
    `    curl -H "Authorization: Bearer ${exampleKey}" ${apiBase}/api/v1/account/api-keys`,
    '    npm run cli -- workspace create --name "Acme" --slug acme',
    '    npm run cli -- webhooks listen   (every webhook of the demo workspace, printed as it is sent)',
    '    the quickstart in README.md: buy, pay, confirm, download, webhook, receipt, workflow',
    rule,
    '',
  );
  process.stdout.write(out.join('\n'));
}

/**
 * The demo workspace's owner, who signs in to the dashboard. Like the keys, its generated password is kept in
 * $DATA_DIR/demo-owner.json (mode 0600) so every `npm start` prints the sign-in again.
 */
const DEMO_OWNER_EMAIL = 'owner@example.com';
type DemoOwner = { kind: 'password'; email: string; password: string } | { kind: 'no-password'; email: string; reason: string };

async function ensureDemoOwner(sequelize: Sequelize, dataDir: string, accountId: string): Promise<DemoOwner> {
  const file = path.join(dataDir, 'demo-owner.json');
  let stored: { email: string; password: string } | null = null;
  try {
    stored = JSON.parse(fs.readFileSync(file, 'utf8')) as { email: string; password: string };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log(`ignoring unreadable ${file}: ${(err as Error).message}`);
  }
  const user = await findUserByEmail(DEMO_OWNER_EMAIL);
  if (user) {
    if (stored && (await verifyPassword(user.passwordHash, stored.password))) return { kind: 'password', email: user.email, password: stored.password };
    return { kind: 'no-password', email: user.email, reason: `its password was printed when it was created (${file} is missing or outdated)` };
  }
  const owner = await createUserService({ sequelize }).create({ email: DEMO_OWNER_EMAIL, workspace: accountId, role: 'owner' });
  fs.writeFileSync(file, `${JSON.stringify({ email: owner.email, password: owner.password }, null, 2)}\n`, { mode: 0o600 });
  return { kind: 'password', email: owner.email, password: owner.password! };
}

// ---------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);

  const config = loadConfig();
  const settings = readStartSettings(process.env);
  if (config.PORT === 0) throw new ConfigError(['PORT: `npm start` needs a fixed port, not 0']);
  // The API's metrics listener: off by default elsewhere, always on here (docs/decisions/metrics.md).
  const metricsPort = config.METRICS_PORT ?? DEFAULT_METRICS_PORT;
  if (metricsPort === 0) throw new ConfigError(['METRICS_PORT: `npm start` needs a fixed port, not 0']);
  const dataDir = path.resolve(config.DATA_DIR);
  fs.mkdirSync(dataDir, { recursive: true });
  const fileStorageDir = path.resolve(config.FILE_STORAGE_DIR);
  fs.mkdirSync(fileStorageDir, { recursive: true });

  const previous = readStackState(dataDir);
  if (previous && previous.pid !== process.pid && isProcessAlive(previous.pid)) {
    throw new ConfigError([`DATA_DIR: ${dataDir} is already in use by \`npm start\` (pid ${previous.pid}); stop it first or use another DATA_DIR`]);
  }

  const embedPostgres = !config.DATABASE_URL;
  const embedTemporal = !process.env.TEMPORAL_ADDRESS; // loadConfig fills in a default, so ask the environment
  const embedMailpit = !config.SMTP_URL;
  const embedPaymentSandbox = !config.PAYMENT_PROVIDER_BASE_URL;
  await assertPortsFree([
    ...(embedPaymentSandbox ? [{ port: settings.paymentSandboxPort, variable: 'PAYMENT_SANDBOX_PORT', what: 'payment sandbox provider' }] : []),
    { port: config.PORT, variable: 'PORT', what: 'API' },
    { port: metricsPort, variable: 'METRICS_PORT', what: 'API metrics' },
    ...(embedPostgres ? [{ port: settings.postgresPort, variable: 'EMBEDDED_POSTGRES_PORT', what: 'embedded PostgreSQL' }] : []),
    ...(embedTemporal
      ? [
          { port: settings.temporalPort, variable: 'TEMPORAL_DEV_PORT', what: 'Temporal dev server' },
          { port: settings.temporalUiPort, variable: 'TEMPORAL_UI_PORT', what: 'Temporal Web UI' },
        ]
      : []),
    ...(embedMailpit
      ? [
          { port: settings.mailpitSmtpPort, variable: 'MAILPIT_SMTP_PORT', what: 'Mailpit SMTP' },
          { port: settings.mailpitUiPort, variable: 'MAILPIT_UI_PORT', what: 'Mailpit web inbox' },
        ]
      : []),
  ]);
  const encryptionKey = loadOrCreateEncryptionKey(dataDir);
  // The Web UI reads payloads through the API's codec endpoint. Its dev build can send no header, so the operator
  // token travels in the endpoint's path (api/codec-endpoint.ts); a fresh one each start unless CODEC_AUTH_TOKEN is set.
  const codecToken = config.CODEC_AUTH_TOKEN ?? randomBytes(32).toString('hex');
  const uiCodecEndpoint = `http://localhost:${config.PORT}/codec/${codecToken}`;
  const codecCorsOrigins = config.CODEC_CORS_ORIGIN ?? [`http://localhost:${settings.temporalUiPort}`, `http://127.0.0.1:${settings.temporalUiPort}`];

  // What to stop, newest first: API and worker, then Mailpit, then Temporal, then PostgreSQL.
  // `running`: a server that stopped before its turn was not spared a terminal's Ctrl-C, which the stop says.
  const stops: { name: string; stop: () => Promise<void>; running?: () => boolean }[] = [];
  const startSupervised = async <R extends Running>(name: string, start: () => Promise<R>): Promise<R> => {
    const supervisor = new Supervisor({ name, start, log });
    supervisors.push(supervisor);
    const first = await supervisor.start();
    stops.unshift({ name, stop: () => supervisor.stop(), running: () => supervisor.running });
    return first;
  };
  let connection: Connection | undefined;
  try {
    // PostgreSQL.
    let databaseUrl = config.DATABASE_URL ?? '';
    if (embedPostgres) {
      const pgLog = fs.createWriteStream(path.join(dataDir, 'postgres.log'), { flags: 'a' });
      log(`starting PostgreSQL on 127.0.0.1:${settings.postgresPort} (data: ${path.join(dataDir, 'postgres')}, log: ${path.join(dataDir, 'postgres.log')})`);
      const pgOptions = {
        dataDir: path.join(dataDir, 'postgres'),
        port: settings.postgresPort,
        persistent: true,
        // Out of the terminal's process group, as Temporal and Mailpit (spawnServer): stopped last, by the ordered stop.
        detached: true,
        onLog: (line: string) => pgLog.write(line.endsWith('\n') ? line : `${line}\n`),
      };
      const postgres = await startSupervised('PostgreSQL', () => startEmbeddedPostgres(pgOptions));
      await postgres.createDatabase(DATABASE_NAME);
      databaseUrl = postgres.url(DATABASE_NAME);
    }
    if (stopRequested) return 0;

    // Temporal.
    let temporalAddress = config.TEMPORAL_ADDRESS;
    let temporalUi: string | null = null;
    if (embedTemporal) {
      await provisionTemporalBinaries(['cli'], 'npm start runs a Temporal dev server with its Web UI');
      const executable = temporalCliExecutable();
      const dbFilename = path.join(dataDir, 'temporal.db');
      log(`starting the Temporal dev server on 127.0.0.1:${settings.temporalPort}, Web UI on ${settings.temporalUiPort} (db: ${dbFilename})`);
      if (executable.type === 'existing-path') {
        const options = { port: settings.temporalPort, uiPort: settings.temporalUiPort, dbFilename, namespace: config.TEMPORAL_NAMESPACE, uiCodecEndpoint };
        await startSupervised('Temporal dev server', () => startTemporalDevServer(executable.path, options));
        temporalAddress = `127.0.0.1:${settings.temporalPort}`;
      } else {
        // No binary and none could be built: the SDK downloads and runs it (needs internet); not supervised.
        const env = await TestWorkflowEnvironment.createLocal({
          server: {
            executable,
            ip: '127.0.0.1',
            port: settings.temporalPort,
            ui: true,
            uiPort: settings.temporalUiPort,
            dbFilename,
            namespace: config.TEMPORAL_NAMESPACE,
            searchAttributes: [...SEARCH_ATTRIBUTES],
            extraArgs: ['--ui-codec-endpoint', uiCodecEndpoint],
            log: { format: 'pretty', level: 'error' },
          },
        });
        stops.unshift({ name: 'Temporal dev server', stop: () => env.teardown() });
        temporalAddress = env.address;
      }
      temporalUi = `http://localhost:${settings.temporalUiPort}`;
    }
    // E-mail: without SMTP_URL, Mailpit catches every message and shows it in its web inbox.
    let mail: MailSetup = config.SMTP_URL ? { kind: 'smtp', url: config.SMTP_URL } : { kind: 'none' };
    let smtpUrl = config.SMTP_URL;
    if (embedMailpit) {
      await provisionTemporalBinaries(['mailpit'], 'npm start runs Mailpit, a mail catcher with a web inbox, when SMTP_URL is unset');
      const executable = mailpitExecutable();
      if (executable) {
        const options = { smtpPort: settings.mailpitSmtpPort, uiPort: settings.mailpitUiPort, database: path.join(dataDir, 'mailpit.db') };
        log(`starting Mailpit: SMTP on 127.0.0.1:${options.smtpPort}, web inbox on ${options.uiPort} (db: ${options.database})`);
        await startSupervised('Mailpit', () => startMailpit(executable, options));
        smtpUrl = `smtp://127.0.0.1:${options.smtpPort}`;
        mail = { kind: 'mailpit', inbox: `http://localhost:${options.uiPort}`, smtp: `127.0.0.1:${options.smtpPort}` };
      } else {
        log('no Mailpit (set MAILPIT_PATH, or install Go and run `npm run provision`) and no SMTP_URL: e-mails will not go out');
      }
    }
    // Traces: unless OTEL_TRACES_EXPORTER is set, a local Jaeger receives the API's and the worker's spans.
    const traceViewer = process.env.OTEL_TRACES_EXPORTER ? null : await localTraceViewer(dataDir, log, (start) => startSupervised('Jaeger', start));
    // Payments: without a configured provider, the built-in sandbox plays it for both environments (keys made
    // for this run; the sandbox keeps its invoices in memory), calling back the API's inbound route.
    let payments = `${config.PAYMENT_PROVIDER_BASE_URL} (PAYMENT_PROVIDER_BASE_URL)`;
    let paymentEnv: Record<string, string> = {};
    if (embedPaymentSandbox) {
      const accounts = (['live', 'test'] as const).map((mode) => ({ secretKey: sandboxSecretKey(mode), callbackToken: randomBytes(32).toString('hex') }));
      const sandbox: PaymentSandbox = await startPaymentSandbox({
        accounts,
        callbackUrl: `http://127.0.0.1:${config.PORT}/api/v1/payment/provider-webhooks`,
        port: settings.paymentSandboxPort,
        disbursementDelayMs: 10_000,
      });
      stops.unshift({ name: 'the payment sandbox', stop: () => sandbox.close() });
      paymentEnv = {
        PAYMENT_PROVIDER_BASE_URL: sandbox.baseUrl,
        PAYMENT_PROVIDER_SECRET_KEY: accounts[0]!.secretKey,
        PAYMENT_PROVIDER_CALLBACK_TOKEN: accounts[0]!.callbackToken,
        PAYMENT_PROVIDER_TEST_SECRET_KEY: accounts[1]!.secretKey,
        PAYMENT_PROVIDER_TEST_CALLBACK_TOKEN: accounts[1]!.callbackToken,
      };
      // Its keys are printed so Xendit's own SDK (xenditURL: the sandbox) or curl can drive it too.
      payments = [
        `${sandbox.baseUrl}   (built-in sandbox provider: hosted invoice pages, test values in docs/decisions/payment-module.md)`,
        `                 test key  ${accounts[1]!.secretKey}`,
        `                 live key  ${accounts[0]!.secretKey}`,
      ].join('\n');
      log(`started the payment sandbox provider on ${sandbox.baseUrl}`);
    }
    if (stopRequested) return 0;

    const temporalConnection = await Connection.connect({ address: temporalAddress });
    connection = temporalConnection;
    if (stopRequested) return 0;

    // Schema and the demo workspace.
    const sequelize = createDatabase({ url: databaseUrl, poolMax: 2 });
    let demo: DemoWorkspace;
    let demoOwner: DemoOwner;
    try {
      const applied = await migrateToLatest(sequelize);
      log(applied.length > 0 ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');
      demo = await ensureDemoWorkspace(sequelize, dataDir);
      demoOwner = await ensureDemoOwner(sequelize, dataDir, demo.kind === 'keys' ? demo.workspace.accountId : demo.accountId);
      const storeConfig = loadConfig({ ...process.env, DATABASE_URL: databaseUrl, ENCRYPTION_KEY: encryptionKey, FILE_STORAGE_DIR: fileStorageDir });
      const temporal = createTemporalClient({ connection: temporalConnection, namespace: config.TEMPORAL_NAMESPACE, keyRing: requireKeyRing(storeConfig) });
      // A demo store that cannot be seeded leaves the stack usable; the next start tries again.
      await ensureDemoStore({ sequelize, config: storeConfig, temporal }, demo.kind === 'keys' ? demo.workspace.accountId : demo.accountId).then(
        (store) => log(store.created.length > 0 ? `seeded the demo store: ${store.created.join(', ')}` : 'the demo store is seeded'),
        (err: unknown) => log(`could not seed the demo store: ${(err as Error).message}`),
      );
    } finally {
      await sequelize.close();
    }
    if (stopRequested) return 0;

    const apiBase = `http://localhost:${config.PORT}`;
    writeStackState(dataDir, {
      pid: process.pid,
      databaseUrl,
      temporalAddress,
      temporalNamespace: config.TEMPORAL_NAMESPACE,
      apiBaseUrl: `${apiBase}/api`,
      temporalUiUrl: temporalUi,
      startedAt: new Date().toISOString(),
    });

    // The API and the worker. Local webhook receivers (`cli webhooks listen`) are on loopback with a certificate of
    // the local CA, so both trust that CA and allow private targets unless told otherwise.
    const localCa = await ensureLocalCa(dataDir);
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: config.TEMPORAL_NAMESPACE,
      ENCRYPTION_KEY: encryptionKey,
      CODEC_AUTH_TOKEN: codecToken,
      CODEC_CORS_ORIGIN: codecCorsOrigins.join(','),
      PORT: String(config.PORT),
      METRICS_PORT: String(metricsPort),
      PUBLIC_BASE_URL: config.PUBLIC_BASE_URL,
      FILE_STORAGE_DIR: fileStorageDir,
      ...(smtpUrl ? { SMTP_URL: smtpUrl } : {}),
      ...paymentEnv,
      WEBHOOK_ALLOW_PRIVATE_URLS: process.env.WEBHOOK_ALLOW_PRIVATE_URLS ?? 'true',
      NODE_EXTRA_CA_CERTS: trustFile(dataDir, localCa, process.env.NODE_EXTRA_CA_CERTS),
      ...traceViewer?.env,
    };
    let workerPid = -1;
    const api = new Supervisor({ name: 'api', log, start: async () => spawnNodeChild('api', 'api/main.ts', childEnv).running });
    const worker = new Supervisor({
      name: 'worker',
      log,
      start: async () => {
        const { child, running } = spawnNodeChild('worker', 'worker/main.ts', childEnv);
        workerPid = child.pid ?? -1;
        return running;
      },
    });
    supervisors.push(api, worker);
    stops.unshift({ name: 'the api and the worker', stop: () => Promise.all([api.stop(), worker.stop()]).then(() => undefined) });
    await Promise.all([api.start(), worker.start()]);

    const ready =
      (await waitFor(() => apiIsReady(config.PORT), API_READY_TIMEOUT_MS)) &&
      (await waitFor(() => workerIsPolling(temporalConnection, config, workerPid), WORKER_READY_TIMEOUT_MS));
    if (stopRequested) return 0;
    if (!ready) {
      requestStop(1, 'the API or the worker did not become ready in time (see their output above)');
      return 0;
    }
    connection = undefined;
    await temporalConnection.close().catch(() => undefined);

    const workerHealth =
      config.WORKER_HEALTH_PORT === 0
        ? '(WORKER_HEALTH_PORT=0: a free port, in the worker\'s "worker health listening" line)'
        : `http://127.0.0.1:${config.WORKER_HEALTH_PORT}/readyz   (and /healthz)`;
    const metrics = [
      `http://127.0.0.1:${metricsPort}/metrics   (API, METRICS_PORT)`,
      `                 ${config.WORKER_HEALTH_PORT === 0 ? '(worker: /metrics on its health port)' : `http://127.0.0.1:${config.WORKER_HEALTH_PORT}/metrics   (worker, with the Temporal SDK's)`}`,
    ].join('\n');
    const store = await demoStoreBanner(apiBase, DEMO_SLUG, demo.kind === 'keys' ? demo.workspace.publishableKey : null);
    printBanner({ apiBase, temporalUi, temporalAddress, mail, payments, workerHealth, metrics, databaseUrl, dataDir, demo, demoOwner, store });
    if (traceViewer) log(`traces: ${traceViewer.url}   (Jaeger; every request's trace, GET /api/traces?service=commerce-api)`);
    await stopped;
    return 0;
  } finally {
    await connection?.close().catch(() => undefined);
    for (const { name, stop, running } of stops) {
      log(running && !running() ? `${name} had already stopped` : `stopping ${name}`);
      await withTimeout(stop(), TEARDOWN_STEP_TIMEOUT_MS, `stopping ${name}`).catch((err: unknown) => log((err as Error).message));
    }
    removeStackState(dataDir, process.pid);
  }
}

main().then(
  () => {
    const code = stopRequested?.code ?? 0;
    log(code === 0 ? 'stopped' : `stopped (${stopRequested?.reason})`);
    process.exit(code);
  },
  (err: unknown) => {
    if (err instanceof ConfigError) log(err.message);
    else if (err instanceof EmbeddedPostgresError) log(`PostgreSQL: ${err.message}`);
    else log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
