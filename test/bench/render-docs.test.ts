import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { replaceMarkedBlock, SUMMARY_END, SUMMARY_START } from '../../bench/lib/marked-block';
import { renderRatioChart } from '../../bench/lib/ratio-chart';
import { chartBars, chartTitle, renderBenchmarksPage, renderReadmeSummary } from '../../bench/lib/render-docs';
import type { ResultsDocument, ScenarioResult } from '../../bench/lib/report';
import { writeBenchDocs } from '../../bench/lib/write-docs';

/** The docs are rendered from the results document alone: every figure below must reach the page as written. */

const measurement = (rps: number, p50: number, p99: number, cpu: number, trips: number) => ({
  requestsPerSecond: rps,
  latencyMs: { p50, p90: p99 - 1, p99, max: p99 + 10, mean: p50 },
  requests: rps * 10,
  durationSeconds: 10,
  bytesPerResponse: 512,
  serverCpuMsPerRequest: cpu,
  roundTripsPerRequest: trips,
});

function http(name: string, target: number, pairs: Array<[number, number]>, medianIndex: number): ScenarioResult {
  const rounds = pairs.map(([ceiling, full]) => ({ ceiling: measurement(ceiling, 5, 11, 0.17, 1), fullStack: measurement(full, 12, 31, 0.5, 1.02), ratio: full / ceiling }));
  const median = rounds[medianIndex]!;
  return { name, target, ...median, rounds, pass: median.ratio >= target };
}

const ceiling = { workflows: 5000, seconds: 51.2, workflowsPerSecond: 97.7, cpuMsPerWorkflow: { temporal: 14.4, worker: 4.5, bench: 1.7 } };

function fullDocument(): ResultsDocument {
  return {
    finishedAt: '2026-11-27T14:03:12.345Z',
    machine: { cpus: 2, cpuModel: 'Test CPU @ 2.0GHz', node: 'v22.11.0', platform: 'linux', loadAverageAtStart: [1.3, 1.1, 0.9] },
    settings: { durationSeconds: 10, warmupSeconds: 3, connections: 32, poolSize: 10, rounds: 3, only: null },
    scenarios: [
      // 3,666 / 9,036 = 40.6%: below its 60% target; the median is the second of three pairs.
      http('api-keys list', 0.6, [[9000, 3500], [9036, 3666], [9100, 3800]], 1),
      http('product list', 0.6, [[637, 452], [640, 460], [650, 470]], 0),
      http('weird <b> & "quoted" | name', 0.5, [[1000, 800], [1000, 700], [1000, 900]], 0),
    ],
    workflowCeiling: ceiling,
    webhookFanout: {
      name: 'webhook fan-out',
      ceiling,
      burst: { events: 1000, deliveries: 5000, seconds: 64, deliveriesPerSecond: 78.2, latencyMs: { p50: 31000, p90: 45000, p99: 49800, max: 50000 }, offeredEventsPerSecond: null },
      paced: { events: 1000, deliveries: 5000, seconds: 100, deliveriesPerSecond: 50, latencyMs: { p50: 73, p90: 200, p99: 553, max: 900 }, offeredEventsPerSecond: 10 },
      ratio: 0.8004,
      target: { ratio: 0.7, pacedP99Ms: 2000 },
      pass: true,
    },
    checkoutCompletion: {
      name: 'checkout completion',
      ceiling,
      throughput: {
        sessions: 1000,
        announcedSeconds: 75.1,
        fulfilledSeconds: 78.7,
        receiptsSentSeconds: 79.2,
        completionsPerSecond: 12.7,
        latencyMs: { p50: 40000, p90: 70000, p99: 76000, max: 78000 },
        confirmLatencyMs: { p50: 700, p90: 900, p99: 1200, max: 1500 },
        offeredPerSecond: null,
        cpuMsPerCompletion: { temporal: 96, worker: 84, postgres: 8, api: 5 },
      },
      paced: {
        sessions: 300,
        announcedSeconds: 50,
        fulfilledSeconds: 50.5,
        completionsPerSecond: 5.9,
        latencyMs: { p50: 142, p90: 180, p99: 219, max: 260 },
        confirmLatencyMs: { p50: 25, p90: 30, p99: 41, max: 50 },
        offeredPerSecond: 6,
        cpuMsPerCompletion: { temporal: 90, worker: 80, postgres: 7, api: 5 },
      },
      ratio: 0.13,
      target: { ratio: 0.4, pacedP99Ms: 300 },
      pass: false,
    },
    productUpload: { bytes: 200_000_000, seconds: 0.627, megabytesPerSecond: 319, rssBeforeMb: 159, peakRssMb: 190, growthMb: 31, peakResetBeforeUpload: true },
    subscriptionRenewals: {
      name: 'subscription renewals',
      subscriptions: 1000,
      ceiling: { workflows: 1000, seconds: 8.77, workflowsPerSecond: 114 },
      waves: [
        { renewals: 1000, seconds: 38.8, renewalsPerSecond: 25.8 },
        { renewals: 1000, seconds: 33.2, renewalsPerSecond: 30.1 },
      ],
      ratio: 0.226,
      target: { ratio: 0.5 },
      pass: false,
      workerRssMb: { afterCreate: 827, afterRenewals: 1400, atScale: 1500 },
      history: [{ runs: 3, events: 9, bytes: 2048 }],
      scale: { subscriptions: 10000, createdPerSecond: 56.6 },
    },
  };
}

/** The Markdown between `## heading` (or `### heading`) and the next heading of any level. */
function section(page: string, heading: string): string {
  const start = page.indexOf(`${heading}\n`);
  if (start === -1) throw new Error(`no section ${heading}`);
  const next = page.slice(start + heading.length).search(/\n#{2,3} /);
  return next === -1 ? page.slice(start) : page.slice(start, start + heading.length + next);
}

const attr = (tag: string, name: string) => Number(new RegExp(`\\b${name}="([-\\d.]+)"`).exec(tag)?.[1]);

describe('bench docs: rendered from the results document', () => {
  const doc = fullDocument();
  const page = renderBenchmarksPage(doc, 'benchmarks.svg');

  it('says it is generated, when, on what machine, at what load, with which settings, and links the method and the chart', () => {
    expect(page).toContain('Generated by `npm run bench`');
    expect(page).toContain('do not edit');
    expect(page).toContain('- **Run finished:** 2026-11-27 14:03 UTC');
    expect(page).toContain('- **Machine:** 2 CPUs (Test CPU @ 2.0GHz), Node v22.11.0 on linux');
    expect(page).toContain('- **1-minute load average at the start:** 1.30');
    expect(page).toContain('3 s warm-up then 10 s measured per side, 32 connections, a pool of 10 per server, 3 pairs per scenario');
    expect(page).toContain('[benchmark-method.md](benchmark-method.md)');
    expect(page).toMatch(/!\[[^\]]+\]\(benchmarks\.svg\)/);
  });

  it("puts each HTTP scenario's both sides, ratio, target, verdict and every pair in its table", () => {
    const keys = section(page, '### api-keys list');
    expect(keys).toContain('| ceiling | 9,036 | 5 | 11 | 0.17 | 1.00 |  |  |  |');
    expect(keys).toContain('| full stack | 3,666 | 12 | 31 | 0.50 | 1.02 | **40.6%** | ≥ 60% | **below target** |');
    expect(keys).toContain('1: 9,000 → 3,500 req/s, 38.9%; **2: 9,036 → 3,666 req/s, 40.6% (median)**; 3: 9,100 → 3,800 req/s, 41.8%.');
    expect(section(page, '### product list')).toContain('| full stack | 452 | 12 | 31 | 0.50 | 1.02 | **71.0%** | ≥ 60% | pass |');
  });

  it('renders the workflow scenarios, the upload and the renewals with their own figures and targets', () => {
    const fanout = section(page, '## Webhook fan-out');
    expect(fanout).toContain('| ceiling: start + complete 5,000 empty workflows | 97.7 workflows/s |');
    expect(fanout).toContain('| burst: 1,000 events × 5 endpoints | 78.2 deliveries/s | 31,000 | 49,800 | **80.0%** | ≥ 70% |');
    expect(fanout).toContain('| paced: 10 events/s × 5 endpoints, commit to receipt | 50.0 deliveries/s | 73 | **553** |  | p99 < 2,000 ms |');
    expect(fanout).toContain('CPU ms per empty workflow: temporal 14.4, worker 4.5, bench 1.7. Verdict: pass.');

    const completion = section(page, '## Checkout completion');
    expect(completion).toContain('| throughput: 1,000 sessions confirmed at once | 12.7 completions/s | 40,000 | 76,000 | 700 / 1,200 | **13.0%** | ≥ 40% |');
    expect(completion).toContain('| 5.9 completions/s | 142 | **219** | 25 / 41 |  | p99 < 300 ms |');
    expect(completion).toContain('its last session was fulfilled 78.7 s and its last receipt was sent 79.2 s after the first confirm.');
    expect(completion).toContain('| temporal | 14.4 | 96.0 | 90.0 |');
    expect(completion).toContain('| api |  | 5.0 | 5.0 |');
    expect(completion).toContain('Verdict: **below target**.');

    const upload = section(page, '## Product upload');
    expect(upload).toContain('200 MB in 0.63 s: **319.0 MB/s**');
    expect(upload).toContain('159.0 MB before, peak 190.0 MB (**+31.0 MB**)');

    const renewals = section(page, '## Subscription renewals');
    expect(renewals).toContain('| first wave (1,000 renewals) | 25.8 renewals/s in 38.8 s: **22.6%** of the ceiling | ≥ 50% |');
    expect(renewals).toContain('| every wave, in order (renewals/s) | 25.8, 30.1 |');
    expect(renewals).toContain('827 MB after creating 1,000; 1,400 MB after 2 waves; 1,500 MB with 10,000 subscriptions open');
    expect(renewals).toContain('Verdict: **below target**.');
  });

  it('summarises every ratio against its target, on the page and in the README block', () => {
    const summary = renderReadmeSummary(doc);
    for (const text of [page, summary]) {
      expect(text).toContain('| api-keys list | 40.6% | ≥ 60% | **below target** |');
      expect(text).toContain('| webhook fan-out | 80.0% (burst); paced p99 553 ms | ≥ 70%; paced p99 < 2,000 ms | pass |');
      expect(text).toContain('| checkout completion | 13.0% (throughput); paced p99 219 ms | ≥ 40%; paced p99 < 300 ms | **below target** |');
      expect(text).toContain('| subscription renewals | 22.6% (first wave) | ≥ 50% | **below target** |');
    }
    expect(summary).toContain('[docs/benchmarks.md](docs/benchmarks.md)');
    expect(summary).toContain('2026-11-27 14:03 UTC, 2 CPUs, 1-minute load average 1.30 at the start');
  });

  it('escapes scenario names for Markdown and for the SVG', () => {
    expect(page).toContain('### weird &lt;b&gt; &amp; "quoted" \\| name');
    expect(page).not.toContain('<b>');
    const svg = renderRatioChart(chartBars(doc), chartTitle(doc));
    expect(svg).toContain('>weird &lt;b&gt; &amp; &quot;quoted&quot; | name</text>');
    expect(XMLValidator.validate(svg)).toBe(true);
  });

  it('draws one bar per ratio, as wide as its ratio, with its target as a marker, in pass or fail colour', () => {
    const bars = chartBars(doc);
    expect(bars.map((b) => b.name)).toEqual([
      'api-keys list',
      'product list',
      'weird <b> & "quoted" | name',
      'webhook fan-out (burst)',
      'checkout completion (throughput)',
      'subscription renewals (first wave)',
    ]);
    const svg = renderRatioChart(bars, chartTitle(doc));
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="\d+" viewBox="0 0 \d+ \d+"/);
    const rects = [...svg.matchAll(/<rect class="bar (pass|fail|none)"[^>]*>/g)];
    const markers = [...svg.matchAll(/<line class="target"[^>]*>/g)].map((m) => m[0]);
    expect(rects).toHaveLength(bars.length);
    expect(markers).toHaveLength(bars.length);
    expect(rects.map((m) => m[1])).toEqual(bars.map((b) => (b.ratio >= b.target! ? 'pass' : 'fail')));
    const plotX = attr(rects[0]![0], 'x');
    // The axis runs to 100% here: every bar's width per unit of ratio, and every marker's offset per unit of target, is one scale.
    const scale = attr(rects[0]![0], 'width') / bars[0]!.ratio;
    rects.forEach((rect, i) => {
      expect(attr(rect[0], 'x')).toBe(plotX);
      expect(attr(rect[0], 'width')).toBeCloseTo(bars[i]!.ratio * scale, 0);
      expect(attr(markers[i]!, 'x1') - plotX).toBeCloseTo(bars[i]!.target! * scale, 0);
    });
    expect(svg).toContain('>40.6%</text>');
    expect(svg).toContain('>100%</text>');
  });

  it('stretches the axis past 100% when a ratio is above it, and leaves a bar without a target neutral and unmarked', () => {
    const svg = renderRatioChart([{ name: 'fast', ratio: 1.13, target: 0.6 }, { name: 'old results', ratio: 0.5, target: null }], 'title');
    expect(svg).toContain('>120%</text>');
    expect(svg).not.toContain('>140%</text>');
    expect(svg.match(/<line class="target"/g)).toHaveLength(1);
    expect(svg).toMatch(/<rect class="bar none"/);
  });

  it('renders a partial document (a BENCH_ONLY run) without the sections it lacks', () => {
    const { finishedAt, machine, settings, subscriptionRenewals } = fullDocument();
    const partial: ResultsDocument = { finishedAt, machine, settings: { ...settings, only: 'subscription' }, scenarios: [], subscriptionRenewals };
    const rendered = renderBenchmarksPage(partial, 'benchmarks.svg');
    expect(rendered).toContain('## Subscription renewals');
    for (const absent of ['## HTTP routes', '## Webhook fan-out', '## Checkout completion', '## Product upload', 'api-keys list']) expect(rendered).not.toContain(absent);
    expect(chartBars(partial)).toEqual([{ name: 'subscription renewals (first wave)', ratio: 0.226, target: 0.5 }]);

    const httpOnly: ResultsDocument = { finishedAt, machine, settings, scenarios: [http('api-keys list', 0.6, [[9036, 3666]], 0)] };
    const one = renderBenchmarksPage(httpOnly, null);
    expect(one).toContain('One pair measured.');
    expect(one).not.toContain('](benchmarks.svg)');
    expect(renderReadmeSummary(httpOnly)).toContain('| api-keys list | 40.6% | ≥ 60% | **below target** |');
  });

  it('renders results written before the workflow scenarios carried targets, as n/a', () => {
    const { subscriptionRenewals, ...rest } = fullDocument();
    const { target: _dropped, ...untargeted } = subscriptionRenewals!;
    const old = { ...rest, subscriptionRenewals: untargeted } as ResultsDocument;
    expect(renderBenchmarksPage(old, null)).toContain('| subscription renewals | 22.6% (first wave) | n/a | **below target** |');
    expect(chartBars(old).at(-1)).toEqual({ name: 'subscription renewals (first wave)', ratio: 0.226, target: null });
  });

  it('renders the placeholder when no full run has been rendered', () => {
    expect(renderBenchmarksPage(null, null)).toContain('No full run rendered yet: run `npm run bench`.');
    expect(renderReadmeSummary(null)).toContain('No full run rendered yet: run `npm run bench`.');
  });
});

describe('the README summary block', () => {
  const readme = ['# Title', '', 'Before.', '', SUMMARY_START, 'old summary', 'more old', SUMMARY_END, '', '## After', 'Kept.', ''].join('\n');

  it('replaces only what lies between the markers', () => {
    const replaced = replaceMarkedBlock(readme, 'new | table');
    expect(replaced).toBe(['# Title', '', 'Before.', '', SUMMARY_START, 'new | table', SUMMARY_END, '', '## After', 'Kept.', ''].join('\n'));
    expect(replaceMarkedBlock(replaced, 'new | table')).toBe(replaced);
  });

  it('fails, naming the marker, when a marker is missing, repeated or out of order', () => {
    expect(() => replaceMarkedBlock('# Title\n', 'x')).toThrow(`expected the marker ${SUMMARY_START} once, found it 0 times`);
    expect(() => replaceMarkedBlock(`${SUMMARY_START}\n`, 'x')).toThrow(`expected the marker ${SUMMARY_END} once, found it 0 times`);
    expect(() => replaceMarkedBlock(`${SUMMARY_START}\n${SUMMARY_START}\n${SUMMARY_END}`, 'x')).toThrow('found it 2 times');
    expect(() => replaceMarkedBlock(`${SUMMARY_END}\n${SUMMARY_START}`, 'x')).toThrow(`the marker ${SUMMARY_END} comes before ${SUMMARY_START}`);
  });
});

describe('writeBenchDocs', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'bench-docs-'));
    await mkdir(path.join(root, 'docs'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const exists = (file: string) => stat(path.join(root, file)).then(() => true, () => false);

  it('writes the page, the chart and the README block; the placeholder removes the chart', async () => {
    await writeFile(path.join(root, 'README.md'), `# R\n\n${SUMMARY_START}\n${SUMMARY_END}\n\n## Documentation\n`);
    expect(await writeBenchDocs(fullDocument(), root)).toEqual(['docs/benchmarks.md', 'docs/benchmarks.svg', 'README.md']);
    expect(await readFile(path.join(root, 'docs/benchmarks.md'), 'utf8')).toMatch(/\]\(benchmarks\.svg\)/);
    expect(XMLValidator.validate(await readFile(path.join(root, 'docs/benchmarks.svg'), 'utf8'))).toBe(true);
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    expect(readme).toContain('| api-keys list | 40.6% | ≥ 60% | **below target** |');
    expect(readme.endsWith(`${SUMMARY_END}\n\n## Documentation\n`)).toBe(true);

    expect(await writeBenchDocs(null, root)).toEqual(['docs/benchmarks.md', 'README.md']);
    expect(await exists('docs/benchmarks.svg')).toBe(false);
    expect(await readFile(path.join(root, 'docs/benchmarks.md'), 'utf8')).not.toContain('benchmarks.svg');
  });

  it('writes nothing when the README has no markers', async () => {
    await writeFile(path.join(root, 'README.md'), '# R\n');
    await expect(writeBenchDocs(fullDocument(), root)).rejects.toThrow(`expected the marker ${SUMMARY_START} once`);
    expect(await exists('docs/benchmarks.md')).toBe(false);
    expect(await exists('docs/benchmarks.svg')).toBe(false);
  });
});
