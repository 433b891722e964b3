import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import path from 'node:path';
import type { CompletionResult } from '../checkout-completion';
import type { UploadResult } from '../product-upload';
import type { SubscriptionBenchResult } from '../subscription-renewals';
import type { FanoutResult, WorkflowCeiling } from '../webhook-fanout';
import type { Measurement } from './load';
import type { BenchOptions } from './options';

export interface ScenarioResult {
  name: string;
  target: number;
  ceiling: Measurement;
  fullStack: Measurement;
  /** fullStack.requestsPerSecond / ceiling.requestsPerSecond (of the median pair when there were several) */
  ratio: number;
  /** Every pair, in the order measured (BENCH_ROUNDS). */
  rounds: Array<{ ceiling: Measurement; fullStack: Measurement; ratio: number }>;
  pass: boolean;
}

/** bench/results/latest.json: a section is absent when its scenario was not run (BENCH_ONLY). */
export interface ResultsDocument {
  finishedAt: string;
  machine: { cpus: number; cpuModel: string | null; node: string; platform: string; loadAverageAtStart: number[] };
  /** `only` is BENCH_ONLY (null for a full run). */
  settings: { durationSeconds: number; warmupSeconds: number; connections: number; poolSize: number; rounds: number; only: string | null };
  scenarios: ScenarioResult[];
  workflowCeiling?: WorkflowCeiling;
  webhookFanout?: FanoutResult;
  checkoutCompletion?: CompletionResult;
  productUpload?: UploadResult;
  subscriptionRenewals?: SubscriptionBenchResult;
}

type ResultSections = Omit<ResultsDocument, 'finishedAt' | 'machine' | 'settings' | 'scenarios'>;

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
const pct = (r: number) => `${(r * 100).toFixed(1)}%`;
const ms = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });
const cpu = (m: Measurement) => (m.serverCpuMsPerRequest === null ? 'n/a' : m.serverCpuMsPerRequest.toFixed(2));
const trips = (m: Measurement) => m.roundTripsPerRequest.toFixed(2);

export function renderTable(results: ScenarioResult[]): string {
  const header = ['scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU ms/req', 'DB trips/req', 'full/ceiling', 'target', 'verdict'];
  const rows: string[][] = [];
  for (const r of results) {
    rows.push([r.name, 'ceiling', fmt(r.ceiling.requestsPerSecond), ms(r.ceiling.latencyMs.p50), ms(r.ceiling.latencyMs.p99), cpu(r.ceiling), trips(r.ceiling), '', '', '']);
    rows.push([
      '',
      'full stack',
      fmt(r.fullStack.requestsPerSecond),
      ms(r.fullStack.latencyMs.p50),
      ms(r.fullStack.latencyMs.p99),
      cpu(r.fullStack),
      trips(r.fullStack),
      pct(r.ratio),
      `>= ${pct(r.target)}`,
      r.pass ? 'PASS' : 'BELOW TARGET',
    ]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const numeric = new Set([2, 3, 4, 5, 6, 7]);
  const line = (cells: string[]) =>
    cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export async function writeResults(
  file: string,
  options: BenchOptions,
  results: ScenarioResult[],
  loadAverageAtStart: number[],
  extra: ResultSections = {},
): Promise<ResultsDocument> {
  await mkdir(path.dirname(file), { recursive: true });
  const document: ResultsDocument = {
    finishedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, node: process.version, platform: process.platform, loadAverageAtStart },
    settings: {
      durationSeconds: options.duration,
      warmupSeconds: options.warmup,
      connections: options.connections,
      poolSize: options.poolSize,
      rounds: options.rounds,
      only: options.only ?? null,
    },
    scenarios: results,
    ...extra,
  };
  await writeFile(file, `${JSON.stringify(document, null, 2)}\n`);
  return document;
}
