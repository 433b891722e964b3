/**
 * Subscription renewals on the dev server, beside their same-run ceiling (issue 13, "Performance and scale").
 *
 * Ceiling: start and complete as many empty workflows as the wave has subscriptions, through a worker process with
 * the same Worker defaults, on the same Temporal dev server.
 * Full stack: `worker/main.ts` as a child process (worker, start relay, outbox relay). N subscriptions of one
 * customer on one test clock, created through the subscription service as the API creates them (each with its
 * workflow and its first invoice's checkout session). Then the clock is advanced one month at a time, R times:
 * each advance is a renewal wave (N period ends: a renewal invoice, its checkout session and its workflow start,
 * continue-as-new, the clock's acknowledgement), timed from the advance's commit to the clock being `ready` again.
 * Between waves the bench marks the renewal invoices paid in the database (as a settled payment would, without
 * the signal: the payment is not what is measured), so no wave runs into dunning.
 * Reported: renewals/s of the first wave against the ceiling (target ≥ 50%), every wave's rate, the worker's RSS,
 * and the history of sample subscriptions after R renewals (its current run: continue-as-new keeps it one cycle
 * long). Then, with BENCH_SUBSCRIPTION_SCALE (default 10,000) subscriptions open on the one worker (the rest
 * trialing on a second clock), the worker's RSS again.
 *
 * Env: BENCH_SUBSCRIPTIONS (1,000), BENCH_SUBSCRIPTION_RENEWALS (12), BENCH_SUBSCRIPTION_SCALE (10,000; 0 skips).
 */
import { readFile } from 'node:fs/promises';
import type { Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { QueryTypes, type Sequelize } from 'sequelize';
import { connectTemporal } from '../api/temporal-client';
import { createDatabase } from '../db/connection';
import { BillingPlan, Customer } from '../db/models';
import type { AuthContext } from '../domain/auth-context';
import { createSubscriptionService } from '../domain/subscriptions';
import { createTestClockService } from '../domain/test-clocks';
import { createStarters } from '../domain/workflow-starters';
import { createWorkspaceService } from '../domain/workspaces';
import { loadConfig } from '../lib/config';
import { createKeyRing, parseEncryptionKey } from '../lib/crypto-box';
import { newId } from '../lib/ids';
import { createLogger } from '../lib/logger';
import { startWorkerProcess, type WorkerProcess } from '../test/helpers/worker-process';
import { subscriptionStateQuery, workflowIds } from '../workflows/messages';
import { profileArgs } from './lib/child-server';
import type { BenchInfra } from './lib/infra';
import type { BenchOptions } from './lib/options';
import { lanes, measureCeiling, measureCeilingWarmup } from './webhook-fanout';

export const RENEWAL_TARGET = 0.5;
const TASK_QUEUE = 'bench-subscriptions';
const CEILING_QUEUE = 'bench-ceiling';
const CREATE_LANES = 16;

function count(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

export interface RenewalWave {
  renewals: number;
  seconds: number;
  renewalsPerSecond: number;
}

export interface SubscriptionBenchResult {
  name: string;
  subscriptions: number;
  ceiling: { workflows: number; seconds: number; workflowsPerSecond: number };
  waves: RenewalWave[];
  /** First wave's renewals/s over the ceiling's workflows/s. */
  ratio: number;
  /** Pass line: a first-wave ratio of at least `ratio`. */
  target: { ratio: number };
  pass: boolean;
  workerRssMb: { afterCreate: number; afterRenewals: number; atScale: number | null };
  /** Sample subscriptions after every renewal: runs (one per cycle) and the current run's history. */
  history: { runs: number; events: number; bytes: number }[];
  scale: { subscriptions: number; createdPerSecond: number } | null;
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return Math.round(kb / 1024);
}

const monthsAfter = (iso: string, months: number) => {
  const d = new Date(iso);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d;
};

async function waitUntil(probe: () => Promise<boolean>, what: string, timeoutMs: number, intervalMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`subscription bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Marks every open invoice of the account paid, with its charge: the customer paid before the next period. */
async function payOpenInvoices(sequelize: Sequelize, accountId: string, at: Date): Promise<void> {
  await sequelize.transaction(async (transaction) => {
    await sequelize.query(`UPDATE invoices SET status = 'paid', paid_at = :at WHERE account_id = :accountId AND status = 'open'`, { replacements: { accountId, at }, transaction });
    await sequelize.query(`UPDATE subscription_charges SET state = 'paid', resolved_at = :at WHERE account_id = :accountId AND state = 'pending'`, { replacements: { accountId, at }, transaction });
  });
}

async function historyOf(client: Client, subscriptionId: string): Promise<{ runs: number; events: number; bytes: number }> {
  const handle = client.workflow.getHandle(workflowIds.subscription(subscriptionId));
  const history = await handle.fetchHistory();
  let runs = 1;
  let previous = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
  while (previous) {
    runs += 1;
    previous = (await client.workflow.getHandle(handle.workflowId, previous).fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
  }
  return { runs, events: history.events?.length ?? 0, bytes: proto.api.history.v1.History.encode(history).finish().length };
}

export async function runSubscriptionRenewals(infra: BenchInfra, options: BenchOptions, log: (line: string) => void): Promise<SubscriptionBenchResult> {
  const subscriptions = count('BENCH_SUBSCRIPTIONS', 1_000);
  const renewals = count('BENCH_SUBSCRIPTION_RENEWALS', 12);
  const scaleTo = count('BENCH_SUBSCRIPTION_SCALE', 10_000);
  const client = await connectTemporal({ address: infra.temporalAddress, namespace: 'default', keyRing: createKeyRing(parseEncryptionKey(infra.encryptionKey)) });
  const workers: WorkerProcess[] = [];
  const sequelize = createDatabase({ url: infra.databaseUrl, poolMax: options.poolSize });
  try {
    log(`subscription renewals / ceiling: ${subscriptions} empty workflows`);
    const ceilingWorker = await startWorkerProcess({ TEMPORAL_ADDRESS: infra.temporalAddress, TEMPORAL_TASK_QUEUE: CEILING_QUEUE, ENCRYPTION_KEY: infra.encryptionKey }, { script: 'bench/servers/ceiling-worker.ts' });
    workers.push(ceilingWorker);
    await measureCeilingWarmup(client);
    const ceiling = await measureCeiling(client, CEILING_QUEUE, subscriptions);
    await ceilingWorker.stop();

    const env = {
      DATABASE_URL: infra.databaseUrl,
      DATABASE_POOL_MAX: String(options.poolSize),
      TEMPORAL_ADDRESS: infra.temporalAddress,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      ENCRYPTION_KEY: infra.encryptionKey,
    };
    const worker = await startWorkerProcess({ ...env, NODE_ENV: 'production', LOG_LEVEL: 'info', WORKER_HEALTH_PORT: '0' }, { nodeArgs: profileArgs() });
    workers.push(worker);
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
    const deps = { sequelize, config, logger: createLogger('silent', 'bench'), starters: createStarters(client, { taskQueue: TASK_QUEUE }) };
    const service = createSubscriptionService(deps);
    const clocks = createTestClockService(deps);
    const ws = await createWorkspaceService({ sequelize }).create({ name: 'Subscriptions bench', slug: `subs-${Date.now().toString(36)}`, plan: 'pro' });
    const auth: AuthContext = {
      accountId: ws.accountId,
      environment: 'test',
      apiKeyId: 'bench',
      access: 'secret',
      account: { id: ws.accountId, name: 'Subscriptions bench', slug: ws.slug, plan: 'pro', fulfillmentEnabled: false, paymentEnabled: false },
    };
    const start = '2025-01-01T00:00:00Z';
    const clock = await clocks.create(auth, { frozenTime: start });
    const plan = await BillingPlan.create({ id: newId('plan'), accountId: ws.accountId, environment: 'test', name: 'Monthly', amount: 100_000, currency: 'IDR', interval: 'monthly' });
    const customer = await Customer.create({ id: newId('cust'), accountId: ws.accountId, environment: 'test', email: 'bench@example.com', name: 'Bench', testClockId: clock.id });

    log(`subscription renewals / creating ${subscriptions} subscriptions on one clock`);
    const ids: string[] = [];
    await lanes(Array.from({ length: subscriptions }, (_, i) => i), CREATE_LANES, async () => {
      ids.push((await service.create(auth, { customerId: customer.id, planId: plan.id })).id);
    });
    await payOpenInvoices(sequelize, ws.accountId, new Date(start));
    // Every workflow started and past its first step before the clock moves.
    await waitUntil(async () => {
      const [row] = await sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM workflow_starts WHERE account_id = :accountId AND started_at IS NULL`, { type: QueryTypes.SELECT, replacements: { accountId: ws.accountId } });
      return row!.n === 0;
    }, 'the subscriptions’ workflow starts', 600_000);
    await lanes(ids, 32, async (id) => {
      await waitUntil(async () => (await client.workflow.getHandle(workflowIds.subscription(id)).query(subscriptionStateQuery)).status !== 'starting', `subscription ${id}’s first step`, 600_000, 250);
    });
    const afterCreate = await rssMb(worker.pid);

    const waves: RenewalWave[] = [];
    for (let wave = 1; wave <= renewals; wave += 1) {
      const to = new Date(monthsAfter(start, wave).getTime() + 3_600_000);
      const t0 = performance.now();
      await clocks.advance(auth, clock.id, { frozenTime: to.toISOString() });
      await waitUntil(async () => (await clocks.retrieve(auth, clock.id)).status === 'ready', `wave ${wave}`, 1_800_000);
      const seconds = (performance.now() - t0) / 1000;
      const [renewed] = await sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM subscriptions WHERE account_id = :accountId AND cycle = :wave`, {
        type: QueryTypes.SELECT,
        replacements: { accountId: ws.accountId, wave },
      });
      if (renewed!.n !== subscriptions) throw new Error(`subscription bench: wave ${wave} renewed ${renewed!.n} of ${subscriptions} before the clock was ready`);
      waves.push({ renewals: subscriptions, seconds, renewalsPerSecond: subscriptions / seconds });
      log(`subscription renewals / wave ${wave}: ${subscriptions} renewals in ${seconds.toFixed(1)} s (${(subscriptions / seconds).toFixed(1)}/s)`);
      await payOpenInvoices(sequelize, ws.accountId, to);
    }
    const afterRenewals = await rssMb(worker.pid);
    const history = await Promise.all(ids.slice(0, 5).map((id) => historyOf(client, id)));

    let scale: SubscriptionBenchResult['scale'] = null;
    let atScale: number | null = null;
    if (scaleTo > subscriptions) {
      const more = scaleTo - subscriptions;
      log(`subscription renewals / scale: ${more} more subscriptions (trialing) on the same worker`);
      const second = await clocks.create(auth, { frozenTime: start });
      const trialCustomer = await Customer.create({ id: newId('cust'), accountId: ws.accountId, environment: 'test', email: 'bench-scale@example.com', name: 'Bench', testClockId: second.id });
      const t0 = performance.now();
      await lanes(Array.from({ length: more }, (_, i) => i), CREATE_LANES, async () => {
        await service.create(auth, { customerId: trialCustomer.id, planId: plan.id, trialDays: 30 });
      });
      scale = { subscriptions: scaleTo, createdPerSecond: more / ((performance.now() - t0) / 1000) };
      await waitUntil(async () => {
        const [row] = await sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM workflow_starts WHERE account_id = :accountId AND started_at IS NULL`, { type: QueryTypes.SELECT, replacements: { accountId: ws.accountId } });
        return row!.n === 0;
      }, 'the scale workflow starts', 1_800_000);
      atScale = await rssMb(worker.pid);
    }
    await worker.stop();
    const ratio = waves[0]!.renewalsPerSecond / ceiling.workflowsPerSecond;
    return {
      name: 'subscription renewals',
      subscriptions,
      ceiling,
      waves,
      ratio,
      target: { ratio: RENEWAL_TARGET },
      pass: ratio >= RENEWAL_TARGET,
      workerRssMb: { afterCreate, afterRenewals, atScale },
      history,
      scale,
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop().catch(() => undefined)));
    await sequelize.close();
    await client.connection.close();
  }
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

export function renderSubscriptionTable(r: SubscriptionBenchResult): string {
  const rates = r.waves.map((w) => w.renewalsPerSecond);
  const lines = [
    `subscription renewals (${r.subscriptions} subscriptions on one test clock, ${r.waves.length} monthly advances)`,
    `  ceiling: start+complete ${r.ceiling.workflows} empty workflows: ${fmt(r.ceiling.workflowsPerSecond, 1)} wf/s`,
    `  first wave: ${fmt(r.waves[0]!.renewalsPerSecond, 1)} renewals/s (${fmt(r.waves[0]!.seconds, 1)} s): ${(r.ratio * 100).toFixed(1)}% of the ceiling (target >= ${Math.round(r.target.ratio * 100)}%): ${r.pass ? 'PASS' : 'BELOW TARGET'}`,
    `  all waves: min ${fmt(Math.min(...rates), 1)}, max ${fmt(Math.max(...rates), 1)}, mean ${fmt(rates.reduce((a, b) => a + b, 0) / rates.length, 1)} renewals/s`,
    `  worker RSS: ${r.workerRssMb.afterCreate} MB after create, ${r.workerRssMb.afterRenewals} MB after the renewals${r.workerRssMb.atScale === null ? '' : `, ${r.workerRssMb.atScale} MB with ${r.scale!.subscriptions} subscriptions open`}`,
    `  history of a subscription after ${r.waves.length} renewals: ${r.history.map((h) => `${h.runs} runs, current run ${h.events} events / ${fmt(h.bytes)} bytes`).join('; ')}`,
    ...(r.scale ? [`  scale: ${fmt(r.scale.createdPerSecond, 1)} subscriptions created/s up to ${r.scale.subscriptions}`] : []),
  ];
  return lines.join('\n');
}
