/**
 * Checkout completion on the dev server, beside the run's empty-workflow ceiling (bench/webhook-fanout.ts).
 *
 * Full stack: `api/main.ts` and `worker/main.ts` (Temporal worker, start relay and outbox relay) as child processes
 * on one task queue, a local SMTP server for the receipts and a local HTTPS receiver (test CA through
 * NODE_EXTRA_CA_CERTS) behind one webhook endpoint subscribed to `checkout.completed`. Sessions of a digital product
 * with a file are created and paid through the API beforehand, each session's workflow waiting for its confirmation.
 * Measured from the merchant's `POST …/confirm` to `checkout.completed` at the receiver, and to the session's
 * `fulfilled_at` (every step done: delivery, ledger credit, event, receipt queued), and to its receipt's `sent_at` (the
 * SMTP server accepted it):
 *
 * - throughput: 1,000 sessions (BENCH_COMPLETIONS) confirmed at once (CONFIRM_LANES requests in flight), completions per second from
 *   the first confirm sent to the last session announced, fulfilled and its receipt sent, against the ceiling's workflows per second;
 * - latency: PACED_SESSIONS confirmed one by one at half the throughput's rate, confirm sent to webhook received.
 */
import { Client } from 'pg';
import { connectTemporal } from '../api/temporal-client';
import { createDatabase } from '../db/connection';
import { WebhookEndpoint } from '../db/models';
import { createWorkspaceService } from '../domain/workspaces';
import { createCryptoBox, createKeyRing, parseEncryptionKey } from '../lib/crypto-box';
import { newId } from '../lib/ids';
import { generateWebhookSecret } from '../lib/webhooks/signature';
import { freePort } from '../scripts/lib/free-port';
import { insertSellableProduct } from '../test/fixtures/fulfillment';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver } from '../test/helpers/https-receiver';
import { startTestSmtpServer } from '../test/helpers/smtp-server';
import { startWorkerProcess, type WorkerProcess } from '../test/helpers/worker-process';
import { checkoutStateQuery, workflowIds } from '../workflows/messages';
import { profileArgs, startServer, type RunningServer } from './lib/child-server';
import { workerProcessEnv, type BenchInfra } from './lib/infra';
import type { BenchOptions } from './lib/options';
import { fullStackServer } from './scenarios';
import type { CpuGroups } from './lib/process-cpu';
import { cpuBetween, cpuSnapshot } from './lib/process-cpu';
import { benchCpuGroups, lanes, latency, perUnitMs, type Latency, type WorkflowCeiling } from './webhook-fanout';

export const PACED_SESSIONS = 300;
const WARMUP_SESSIONS = 50;
/** Requests in flight while sessions are created, paid and (in the throughput run) confirmed: autocannon's 32. */
const CONFIRM_LANES = 32;
export const COMPLETION_THROUGHPUT_TARGET = 0.4;
export const COMPLETION_P99_TARGET_MS = 300;
const TASK_QUEUE = 'bench-checkout';
const PRICE_CENTS = 1_900;

export interface CompletionRun {
  sessions: number;
  /** First confirm sent to the last `checkout.completed` received. */
  announcedSeconds: number;
  /** First confirm sent to the last session fulfilled (announced and every step done). */
  fulfilledSeconds: number;
  /** First confirm sent to the last receipt sent (accepted by the SMTP server), the throughput's end with the two above; absent in results of runs before 2026-11-28 that did not wait for receipts. */
  receiptsSentSeconds?: number;
  completionsPerSecond: number;
  /** Confirm sent (bench clock) to `checkout.completed` received (same process, same clock). */
  latencyMs: Latency;
  /** Confirm sent to the API's 200. */
  confirmLatencyMs: Latency;
  /** Offered confirmations per second; null when all are sent at once. */
  offeredPerSecond: number | null;
  /** CPU milliseconds per completion by process, over the run (bench/lib/process-cpu.ts). */
  cpuMsPerCompletion: Record<string, number>;
}

export interface CompletionResult {
  name: string;
  ceiling: WorkflowCeiling;
  throughput: CompletionRun;
  paced: CompletionRun;
  /** throughput.completionsPerSecond / ceiling.workflowsPerSecond */
  ratio: number;
  /** Pass line: a ratio of at least `ratio`, and a paced p99 (confirm to webhook) under `pacedP99Ms`. */
  target: { ratio: number; pacedP99Ms: number };
  pass: boolean;
}

interface Shop {
  api: RunningServer;
  secretKey: string;
  productId: string;
}

async function call(api: RunningServer, method: string, path: string, key: string | undefined, body?: unknown): Promise<{ status: number; json: { data?: Record<string, unknown> } }> {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as { data?: Record<string, unknown> };
  return { status: response.status, json };
}

/** Sessions created and paid through the API, each workflow then waiting for the merchant's confirmation. */
async function preparePaidSessions(shop: Shop, count: number, temporal: Awaited<ReturnType<typeof connectTemporal>>): Promise<string[]> {
  const ids: string[] = [];
  await lanes(
    Array.from({ length: count }, (_, i) => i),
    CONFIRM_LANES,
    async (n) => {
      const created = await call(shop.api, 'POST', '/api/v1/payment/checkout-sessions', shop.secretKey, {
        amount: PRICE_CENTS,
        currency: 'USD',
        description: 'Bench ebook',
        customerEmail: `buyer${n}@example.com`,
        productId: shop.productId,
      });
      if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.json).slice(0, 300)}`);
      const id = created.json.data!.id as string;
      const paid = await call(shop.api, 'POST', `/api/v1/payment/checkout-sessions/${id}/pay`, undefined, { paymentMethod: 'va' });
      if (paid.status !== 200) throw new Error(`pay answered ${paid.status}: ${JSON.stringify(paid.json).slice(0, 300)}`);
      ids.push(id);
    },
  );
  // The worker has taken in the last sessions' payment signals: the queue holds no start or signal of this batch.
  for (const id of ids.slice(-10)) {
    const handle = temporal.workflow.getHandle(workflowIds.checkoutSession(id));
    for (let tries = 0; ; tries += 1) {
      const state = await handle.query(checkoutStateQuery).catch(() => undefined);
      if (state?.step === 'awaiting_confirmation') break;
      if (tries > 600) throw new Error(`session ${id}'s workflow never reached awaiting_confirmation (${JSON.stringify(state)})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return ids;
}

/** When each session's `checkout.completed` reached the receiver, by session id. */
function announcedAt(receiver: HttpsReceiver): Map<string, number> {
  const at = new Map<string, number>();
  for (const r of receiver.received) {
    const envelope = JSON.parse(r.rawBody) as { type: string; data: { id: string } };
    if (envelope.type !== 'checkout.completed') throw new Error(`the endpoint received a ${envelope.type} event`);
    if (at.has(envelope.data.id)) throw new Error(`checkout.completed of ${envelope.data.id} received twice`);
    at.set(envelope.data.id, r.receivedAt);
  }
  return at;
}

/** When the last of the sessions' receipts was accepted by the SMTP server (`sent_at`), once all are. */
async function lastReceiptSentAt(db: Client, ids: string[]): Promise<number> {
  const keys = ids.map((id) => `checkout_receipt:${id}`);
  for (;;) {
    const { rows } = await db.query<{ sent: number; last: Date | null }>(
      `SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent, max(sent_at) AS last FROM email_messages WHERE business_key = ANY($1)`,
      [keys],
    );
    if (rows[0]!.sent === ids.length) return rows[0]!.last!.getTime();
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function lastFulfilledAt(db: Client, ids: string[]): Promise<number> {
  for (;;) {
    const { rows } = await db.query<{ pending: number; last: Date | null }>(
      'SELECT count(*) FILTER (WHERE fulfilled_at IS NULL)::int AS pending, max(fulfilled_at) AS last FROM checkout_sessions WHERE id = ANY($1)',
      [ids],
    );
    if (rows[0]!.pending === 0) return rows[0]!.last!.getTime();
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Confirms `ids` (all at once, or at `pace` per second) and waits for every session to be announced and fulfilled. */
async function complete(shop: Shop, receiver: HttpsReceiver, db: Client, ids: string[], pace: number | null, groups: CpuGroups): Promise<CompletionRun> {
  const cpuBefore = cpuSnapshot(groups);
  const sentAt = new Map<string, number>();
  const confirmMs: number[] = [];
  const confirm = async (id: string) => {
    const t0 = Date.now();
    sentAt.set(id, t0);
    const confirmed = await call(shop.api, 'POST', `/api/v1/payment/checkout-sessions/${id}/confirm`, shop.secretKey);
    if (confirmed.status !== 200) throw new Error(`confirm answered ${confirmed.status}: ${JSON.stringify(confirmed.json).slice(0, 300)}`);
    confirmMs.push(Date.now() - t0);
  };
  const before = receiver.received.length;
  const first = Date.now();
  if (pace === null) {
    await lanes(ids, CONFIRM_LANES, confirm);
  } else {
    const inFlight: Promise<void>[] = [];
    for (const [n, id] of ids.entries()) {
      const wait = first + (n * 1000) / pace - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      inFlight.push(confirm(id));
    }
    await Promise.all(inFlight);
  }
  await receiver.waitFor((received) => received.length - before >= ids.length, 900_000);
  const fulfilled = await lastFulfilledAt(db, ids);
  const receiptsSent = await lastReceiptSentAt(db, ids);
  const cpu = perUnitMs(cpuBetween(cpuBefore, cpuSnapshot(groups)), ids.length);
  const announced = announcedAt(receiver);
  const latencies = ids.map((id) => {
    const at = announced.get(id);
    if (at === undefined) throw new Error(`no checkout.completed received for ${id}`);
    return at - sentAt.get(id)!;
  });
  const firstSent = Math.min(...sentAt.values());
  const lastAnnounced = Math.max(...ids.map((id) => announced.get(id)!));
  const fulfilledSeconds = (Math.max(lastAnnounced, fulfilled) - firstSent) / 1000;
  const receiptsSentSeconds = (receiptsSent - firstSent) / 1000;
  return {
    sessions: ids.length,
    announcedSeconds: (lastAnnounced - firstSent) / 1000,
    fulfilledSeconds,
    receiptsSentSeconds,
    completionsPerSecond: ids.length / Math.max(fulfilledSeconds, receiptsSentSeconds),
    latencyMs: latency(latencies),
    confirmLatencyMs: latency(confirmMs),
    offeredPerSecond: pace,
    cpuMsPerCompletion: cpu,
  };
}

/** The warm-up, the throughput run and the paced run; every process it starts is stopped before returning. */
export async function runCheckoutCompletion(infra: BenchInfra, options: BenchOptions, ceiling: WorkflowCeiling, log: (line: string) => void): Promise<CompletionResult> {
  const certs = await createTestCertificates();
  const receiver = await startHttpsReceiver(certs);
  const smtp = await startTestSmtpServer();
  const temporal = await connectTemporal({ address: infra.temporalAddress, namespace: 'default', keyRing: createKeyRing(parseEncryptionKey(infra.encryptionKey)) });
  const db = new Client({ connectionString: infra.databaseUrl });
  await db.connect();
  const sequelize = createDatabase({ url: infra.databaseUrl, poolMax: 2 });
  let worker: WorkerProcess | undefined;
  let api: RunningServer | undefined;
  try {
    const ws = await createWorkspaceService({ sequelize }).create({ name: 'Checkout bench', slug: `checkout-bench-${Date.now().toString(36)}`, plan: 'pro' });
    const tenant = { accountId: ws.accountId, environment: 'test' as const };
    const product = await insertSellableProduct(sequelize, tenant, { files: ['bench-ebook.pdf'] });
    await WebhookEndpoint.create({
      id: newId('whe'),
      ...tenant,
      url: receiver.url('/checkout'),
      events: ['checkout.completed'],
      description: 'checkout bench',
      active: true,
      secretSealed: createCryptoBox(parseEncryptionKey(infra.encryptionKey)).seal(generateWebhookSecret()),
    });

    const spec = fullStackServer({ infra, options });
    api = await startServer('checkout completion / api', { ...spec, env: { ...spec.env, TEMPORAL_TASK_QUEUE: TASK_QUEUE } }, await freePort());
    const workerEnv = {
      ...workerProcessEnv(infra, options.poolSize, TASK_QUEUE),
      PUBLIC_BASE_URL: spec.env.PUBLIC_BASE_URL!,
      SMTP_URL: smtp.url,
      NODE_EXTRA_CA_CERTS: certs.caFile,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      // The bench's sessions are test-mode ones; their settlement waits the live delay, as it comes days after the
      // completion, so the settlement sweep (one short workflow per interval, none per completion) releases none of
      // them inside the measurement.
      TEST_SETTLEMENT_DELAY: '2d',
    };
    worker = await startWorkerProcess(workerEnv, { nodeArgs: profileArgs() });
    const shop: Shop = { api, secretKey: ws.secretKey, productId: product.id };
    const workerPid = worker.pid;
    const apiPid = api.pid;
    const groups: CpuGroups = { ...benchCpuGroups(infra), worker: () => [workerPid], api: () => (apiPid === undefined ? [] : [apiPid]) };

    const throughputSessions = options.completions;
    const pacedSessions = Math.min(PACED_SESSIONS, throughputSessions);
    log(`checkout completion / preparing ${WARMUP_SESSIONS} paid sessions through the API`);
    const warmup = await preparePaidSessions(shop, WARMUP_SESSIONS, temporal);
    log(`checkout completion / warm-up: ${WARMUP_SESSIONS} sessions`);
    await complete(shop, receiver, db, warmup, null, groups);

    log(`checkout completion / preparing ${throughputSessions} paid sessions through the API`);
    const burst = await preparePaidSessions(shop, throughputSessions, temporal);
    log(`checkout completion / throughput: ${throughputSessions} sessions confirmed at once`);
    const throughput = await complete(shop, receiver, db, burst, null, groups);

    const paceOf = Math.max(1, Math.round(throughput.completionsPerSecond * 0.5));
    log(`checkout completion / preparing ${pacedSessions} paid sessions through the API`);
    const pacedIds = await preparePaidSessions(shop, pacedSessions, temporal);
    log(`checkout completion / paced: ${pacedSessions} sessions at ${paceOf} confirmations/s`);
    const paced = await complete(shop, receiver, db, pacedIds, paceOf, groups);
    api.assertAlive();

    const ratio = throughput.completionsPerSecond / ceiling.workflowsPerSecond;
    return {
      name: 'checkout completion',
      ceiling,
      throughput,
      paced,
      ratio,
      target: { ratio: COMPLETION_THROUGHPUT_TARGET, pacedP99Ms: COMPLETION_P99_TARGET_MS },
      pass: ratio >= COMPLETION_THROUGHPUT_TARGET && paced.latencyMs.p99 < COMPLETION_P99_TARGET_MS,
    };
  } finally {
    await worker?.stop().catch(() => undefined);
    await api?.stop().catch(() => undefined);
    await receiver.close();
    await smtp.close();
    await temporal.connection.close();
    await db.end();
    await sequelize.close();
  }
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });

export function renderCompletionTable(r: CompletionResult): string {
  const rows = [
    ['checkout completion', 'ceiling: start+complete empty workflows', `${fmt(r.ceiling.workflowsPerSecond)} wf/s`, '', '', '', ''],
    ['', `throughput: ${r.throughput.sessions} confirmed at once`, `${fmt(r.throughput.completionsPerSecond)} completions/s`, fmt(r.throughput.latencyMs.p50), fmt(r.throughput.latencyMs.p99), `${(r.ratio * 100).toFixed(1)}%`, `>= ${Math.round(r.target.ratio * 100)}%`],
    ['', `paced: ${r.paced.offeredPerSecond}/s, confirm to webhook`, `${fmt(r.paced.completionsPerSecond)} completions/s`, fmt(r.paced.latencyMs.p50), fmt(r.paced.latencyMs.p99), '', `p99 < ${r.target.pacedP99Ms} ms`],
  ];
  const header = ['scenario', 'run', 'throughput', 'p50 ms', 'p99 ms', 'vs ceiling', 'target'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  const cpu = (label: string, byProcess: Record<string, number>) =>
    `${label}: ${Object.entries(byProcess)
      .map(([name, ms]) => `${name} ${ms.toFixed(1)}`)
      .join(', ')}`;
  return [
    line(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map(line),
    `CPU ms ${cpu('per empty workflow', r.ceiling.cpuMsPerWorkflow)}`,
    `CPU ms ${cpu('per completion (throughput)', r.throughput.cpuMsPerCompletion)}`,
    `CPU ms ${cpu('per completion (paced)', r.paced.cpuMsPerCompletion)}`,
    `confirm p50/p99 ms: throughput ${fmt(r.throughput.confirmLatencyMs.p50)}/${fmt(r.throughput.confirmLatencyMs.p99)}, paced ${fmt(r.paced.confirmLatencyMs.p50)}/${fmt(r.paced.confirmLatencyMs.p99)}`,
    `verdict: ${r.pass ? 'PASS' : 'BELOW TARGET'}`,
  ].join('\n');
}
