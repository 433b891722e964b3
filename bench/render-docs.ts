/**
 * `npm run bench:docs`: renders docs/benchmarks.md, its chart and the README's summary again from
 * bench/results/latest.json, without running the bench. Refuses the results of a BENCH_ONLY run, which would drop
 * every scenario it did not run. `--no-results` renders the placeholder of a checkout where no full run was rendered.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ROOT } from './lib/child-server';
import type { ResultsDocument } from './lib/report';
import { writeBenchDocs } from './lib/write-docs';

const RESULTS_FILE = path.join(PROJECT_ROOT, 'bench', 'results', 'latest.json');
const SECTIONS = ['webhookFanout', 'checkoutCompletion', 'productUpload', 'subscriptionRenewals'] as const;

async function readResults(): Promise<ResultsDocument> {
  const text = await readFile(RESULTS_FILE, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw new Error(`${path.relative(PROJECT_ROOT, RESULTS_FILE)} does not exist: run \`npm run bench\` first`);
    throw err;
  });
  const doc = JSON.parse(text) as Partial<ResultsDocument>;
  if (typeof doc.finishedAt !== 'string' || !doc.machine || !doc.settings || !Array.isArray(doc.scenarios)) {
    throw new Error(`${RESULTS_FILE} is not a results document of \`npm run bench\``);
  }
  if (doc.settings.only) throw new Error(`the results are of a BENCH_ONLY="${doc.settings.only}" run: docs left alone (run \`npm run bench\` in full)`);
  // Results written before runs recorded BENCH_ONLY: a full run is one with every section.
  const missing = SECTIONS.filter((section) => !doc[section]);
  if (doc.settings.only === undefined && (doc.scenarios.length === 0 || missing.length > 0)) {
    throw new Error(`the results lack ${[...(doc.scenarios.length === 0 ? ['the HTTP scenarios'] : []), ...missing].join(', ')}: docs left alone (run \`npm run bench\` in full)`);
  }
  return doc as ResultsDocument;
}

async function main(): Promise<void> {
  const doc = process.argv.includes('--no-results') ? null : await readResults();
  const written = await writeBenchDocs(doc, PROJECT_ROOT);
  console.log(`rendered ${written.join(', ')}`);
}

main().catch((err: unknown) => {
  console.error(`[bench:docs] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
