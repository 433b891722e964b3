/**
 * Webhook fan-out on the dev server, beside its same-run ceiling.
 *
 * Ceiling: start and complete 5,000 empty workflows (no activity, no timer) through a worker process with
 * the same Worker defaults, on the same Temporal dev server.
 * Full stack: `worker/main.ts` as a child process (Temporal worker + outbox relay), 5 endpoints on a local
 * HTTPS receiver (test CA through NODE_EXTRA_CA_CERTS), 1,000 events committed to the outbox, each in its own
 * transaction. Two runs: a burst (all 1,000 as fast as they commit) for deliveries/s, and a paced run at half
 * the burst's rate for commit-to-receipt latency without a self-made backlog.
 */
import type { Client } from '@temporalio/client';
import { connectTemporal } from '../api/temporal-client';
import { createWorkspaceService } from '../domain/workspaces';
import { createDatabase } from '../db/connection';
import { WebhookEndpoint } from '../db/models';
import { emit } from '../db/outbox';
import { createCryptoBox, createKeyRing, parseEncryptionKey } from '../lib/crypto-box';
import { newId } from '../lib/ids';
import { generateWebhookSecret } from '../lib/webhooks/signature';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver } from '../test/helpers/https-receiver';
import { startWorkerProcess, type WorkerProcess } from '../test/helpers/worker-process';
import { workerProcessEnv, type BenchInfra } from './lib/infra';
import { cpuBetween, cpuSnapshot, postgresPids, temporalServerPids, type CpuGroups } from './lib/process-cpu';
import type { BenchOptions } from './lib/options';

export const FANOUT_EVENTS = 1_000;
export const FANOUT_ENDPOINTS = 5;
export const CEILING_WORKFLOWS = FANOUT_EVENTS * FANOUT_ENDPOINTS;
const WARMUP_EVENTS = 50;
const EMITTERS = 8;
/** Same as the relay's default start concurrency, so both sides start workflows alike. */
const START_LANES = 32;
const RESULT_LANES = 64;
export const FANOUT_TARGET = 0.7;
export const FANOUT_P99_TARGET_MS = 2_000;

export interface Latency {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface FanoutRun {
  events: number;
  deliveries: number;
  seconds: number;
  deliveriesPerSecond: number;
  /** Event commit (in this process) to receipt at the receiver (in this process): one clock. */
  latencyMs: Latency;
  /** Offered event rate; null for the burst. */
  offeredEventsPerSecond: number | null;
}

export interface WorkflowCeiling {
  workflows: number;
  seconds: number;
  workflowsPerSecond: number;
  /** CPU milliseconds per workflow by process (bench/lib/process-cpu.ts). */
  cpuMsPerWorkflow: Record<string, number>;
}

export interface FanoutResult {
  name: string;
  ceiling: WorkflowCeiling;
  burst: FanoutRun;
  paced: FanoutRun;
  /** burst.deliveriesPerSecond / ceiling.workflowsPerSecond */
  ratio: number;
  /** Pass line: a ratio of at least `ratio`, and a paced p99 under `pacedP99Ms`. */
  target: { ratio: number; pacedP99Ms: number };
  pass: boolean;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

export function latency(values: number[]): Latency {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? 0 };
}

/** Runs `fn` over `items`, `count` at a time. */
export async function lanes<T>(items: T[], count: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(count, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next] as T;
        next += 1;
        await fn(item);
      }
    }),
  );
}

/** Starts `count` empty workflows and waits for each to complete: the same-run ceiling of the workflow scenarios. */
export async function measureCeiling(client: Client, taskQueue: string, count = CEILING_WORKFLOWS): Promise<Omit<WorkflowCeiling, 'cpuMsPerWorkflow'>> {
  const run = `ceiling-${Date.now()}`;
  const ids = Array.from({ length: count }, (_, i) => `${run}-${i}`);
  const started: string[] = [];
  const t0 = performance.now();
  let startsDone = false;
  const starting = lanes(ids, START_LANES, async (workflowId) => {
    await client.workflow.start('emptyWorkflow', { taskQueue, workflowId, args: [] });
    started.push(workflowId);
  }).then(() => {
    startsDone = true;
  });
  // Completion is observed as results come in, in parallel with the starts.
  let completed = 0;
  const waiting = Promise.all(
    Array.from({ length: RESULT_LANES }, async () => {
      for (;;) {
        const workflowId = started.shift();
        if (workflowId === undefined) {
          if (startsDone) return;
          await new Promise((r) => setTimeout(r, 2));
          continue;
        }
        await client.workflow.getHandle(workflowId).result();
        completed += 1;
      }
    }),
  );
  await starting;
  await waiting;
  const seconds = (performance.now() - t0) / 1000;
  if (completed !== count) throw new Error(`ceiling: ${completed} of ${count} workflows completed`);
  return { workflows: count, seconds, workflowsPerSecond: count / seconds };
}

interface FanoutFixture {
  commit(eventCount: number, pace: number | null): Promise<FanoutRun>;
}

async function fanoutFixture(infra: BenchInfra, receiver: HttpsReceiver, poolSize: number): Promise<FanoutFixture & { close(): Promise<void> }> {
  const sequelize = createDatabase({ url: infra.databaseUrl, poolMax: poolSize });
  const box = createCryptoBox(parseEncryptionKey(infra.encryptionKey));
  const ws = await createWorkspaceService({ sequelize }).create({ name: 'Fan-out bench', slug: `fanout-${Date.now().toString(36)}`, plan: 'pro' });
  await WebhookEndpoint.bulkCreate(
    Array.from({ length: FANOUT_ENDPOINTS }, (_, i) => ({
      id: newId('whe'),
      accountId: ws.accountId,
      environment: 'test' as const,
      url: receiver.url(`/fanout-${i}`),
      events: [],
      description: `bench endpoint ${i + 1}`,
      active: true,
      secretSealed: box.seal(generateWebhookSecret()),
    })),
  );

  const committedAt = new Map<string, number>();
  const commitOne = async (n: number) => {
    const event = await sequelize.transaction((tx) =>
      emit(tx, { accountId: ws.accountId, environment: 'test' }, 'service.product.updated.v1', { id: `prod_bench_${n}`, name: `Product ${n}`, price: 10 + n }),
    );
    committedAt.set(event.id, performance.now() + performance.timeOrigin);
  };

  return {
    async commit(eventCount, pace) {
      const before = receiver.received.length;
      const first = Date.now();
      const numbers = Array.from({ length: eventCount }, (_, i) => i);
      if (pace === null) {
        await lanes(numbers, EMITTERS, commitOne);
      } else {
        const gapMs = 1000 / pace;
        const inFlight: Promise<void>[] = [];
        for (const n of numbers) {
          const due = first + n * gapMs;
          const wait = due - Date.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          inFlight.push(commitOne(n));
        }
        await Promise.all(inFlight);
      }
      const expected = eventCount * FANOUT_ENDPOINTS;
      await receiver.waitFor((r) => r.length - before >= expected, 600_000);
      const received = receiver.received.slice(before);
      const latencies = received.map((r) => r.receivedAt - (committedAt.get(r.headers['x-service-event-id'] as string) ?? Number.NaN));
      if (latencies.some(Number.isNaN)) throw new Error('fan-out: a delivery arrived for an event this run did not commit');
      const pairs = new Set(received.map((r) => `${r.path} ${r.headers['x-service-event-id']}`));
      if (pairs.size !== expected) throw new Error(`fan-out: ${pairs.size} distinct (event, endpoint) deliveries, expected ${expected}`);
      const firstCommit = Math.min(...received.map((r) => committedAt.get(r.headers['x-service-event-id'] as string)!));
      const seconds = (Math.max(...received.map((r) => r.receivedAt)) - firstCommit) / 1000;
      return {
        events: eventCount,
        deliveries: expected,
        seconds,
        deliveriesPerSecond: expected / seconds,
        latencyMs: latency(latencies),
        offeredEventsPerSecond: pace,
      };
    },
    close: () => sequelize.close(),
  };
}

/**
 * The workflow ceiling the fan-out and the checkout completions are held to: starting and completing CEILING_WORKFLOWS
 * empty workflows through a worker process with the Worker defaults, on the run's dev server (after a warm-up).
 */
export async function measureWorkflowCeiling(infra: BenchInfra, log: (line: string) => void): Promise<WorkflowCeiling> {
  const temporal = await connectTemporal({ address: infra.temporalAddress, namespace: 'default', keyRing: createKeyRing(parseEncryptionKey(infra.encryptionKey)) });
  const ceilingWorker = await startWorkerProcess({ TEMPORAL_ADDRESS: infra.temporalAddress, TEMPORAL_TASK_QUEUE: 'bench-ceiling', ENCRYPTION_KEY: infra.encryptionKey }, { script: 'bench/servers/ceiling-worker.ts' });
  try {
    log(`workflow ceiling: ${CEILING_WORKFLOWS} empty workflows`);
    await measureCeilingWarmup(temporal);
    const groups = { ...benchCpuGroups(infra), worker: () => [ceilingWorker.pid] };
    const before = cpuSnapshot(groups);
    const ceiling = await measureCeiling(temporal, 'bench-ceiling');
    return { ...ceiling, cpuMsPerWorkflow: perUnitMs(cpuBetween(before, cpuSnapshot(groups)), ceiling.workflows) };
  } finally {
    await ceilingWorker.stop();
    await temporal.connection.close();
  }
}

/** The processes every Temporal measurement shares: the dev server, PostgreSQL and this process (the client side). */
export function benchCpuGroups(infra: BenchInfra): CpuGroups {
  return {
    temporal: () => temporalServerPids(infra.temporalAddress.split(':').pop()!),
    postgres: () => postgresPids(new URL(infra.databaseUrl).port),
    bench: () => [process.pid],
  };
}

export function perUnitMs(cpuSeconds: Record<string, number>, units: number): Record<string, number> {
  return Object.fromEntries(Object.entries(cpuSeconds).map(([name, seconds]) => [name, Math.round((seconds * 1000 * 100) / units) / 100]));
}

/** The burst and the paced fan-out against the run's workflow ceiling; every worker process is stopped before returning. */
export async function runWebhookFanout(infra: BenchInfra, options: BenchOptions, ceiling: WorkflowCeiling, log: (line: string) => void): Promise<FanoutResult> {
  const certs = await createTestCertificates();
  const receiver = await startHttpsReceiver(certs);
  const workers: WorkerProcess[] = [];
  try {
    const fixture = await fanoutFixture(infra, receiver, options.poolSize);
    try {
      const worker = await startWorkerProcess({
        ...workerProcessEnv(infra, options.poolSize, 'bench-webhooks'),
        ENCRYPTION_KEY: infra.encryptionKey,
        NODE_EXTRA_CA_CERTS: certs.caFile,
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      });
      workers.push(worker);
      log(`webhook fan-out / warm-up: ${WARMUP_EVENTS} events`);
      await fixture.commit(WARMUP_EVENTS, null);
      log(`webhook fan-out / burst: ${FANOUT_EVENTS} events x ${FANOUT_ENDPOINTS} endpoints`);
      const burst = await fixture.commit(FANOUT_EVENTS, null);
      const pace = Math.max(1, Math.round((burst.deliveriesPerSecond / FANOUT_ENDPOINTS) * 0.5));
      log(`webhook fan-out / paced: ${FANOUT_EVENTS} events at ${pace} events/s`);
      const paced = await fixture.commit(FANOUT_EVENTS, pace);
      await worker.stop();
      const ratio = burst.deliveriesPerSecond / ceiling.workflowsPerSecond;
      return {
        name: 'webhook fan-out',
        ceiling,
        burst,
        paced,
        ratio,
        target: { ratio: FANOUT_TARGET, pacedP99Ms: FANOUT_P99_TARGET_MS },
        pass: ratio >= FANOUT_TARGET && paced.latencyMs.p99 < FANOUT_P99_TARGET_MS,
      };
    } finally {
      await fixture.close();
    }
  } finally {
    await Promise.all(workers.map((w) => w.stop().catch(() => undefined)));
    await receiver.close();
  }
}

/** A few hundred empty workflows first, so the ceiling is not charged with worker and server warm-up. */
export async function measureCeilingWarmup(client: Client): Promise<void> {
  const ids = Array.from({ length: 200 }, (_, i) => `ceiling-warmup-${Date.now()}-${i}`);
  await lanes(ids, START_LANES, async (workflowId) => {
    await client.workflow.execute('emptyWorkflow', { taskQueue: 'bench-ceiling', workflowId, args: [] });
  });
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

export function renderFanoutTable(r: FanoutResult): string {
  const rows = [
    ['webhook fan-out', 'ceiling: start+complete empty workflows', fmt(r.ceiling.workflowsPerSecond) + ' wf/s', '', '', '', ''],
    ['', `burst: ${r.burst.events} events x ${FANOUT_ENDPOINTS}`, fmt(r.burst.deliveriesPerSecond) + ' deliveries/s', fmt(r.burst.latencyMs.p50), fmt(r.burst.latencyMs.p99), `${(r.ratio * 100).toFixed(1)}%`, `>= ${Math.round(r.target.ratio * 100)}%`],
    ['', `paced: ${r.paced.offeredEventsPerSecond} events/s x ${FANOUT_ENDPOINTS}`, fmt(r.paced.deliveriesPerSecond) + ' deliveries/s', fmt(r.paced.latencyMs.p50), fmt(r.paced.latencyMs.p99), '', `p99 < ${r.target.pacedP99Ms} ms`],
  ];
  const header = ['scenario', 'run', 'throughput', 'p50 ms', 'p99 ms', 'vs ceiling', 'target'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  const verdict = r.pass ? 'PASS' : 'BELOW TARGET';
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line), `verdict: ${verdict}`].join('\n');
}
