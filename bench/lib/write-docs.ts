import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { replaceMarkedBlock } from './marked-block';
import { renderRatioChart } from './ratio-chart';
import { chartBars, chartTitle, renderBenchmarksPage, renderReadmeSummary } from './render-docs';
import type { ResultsDocument } from './report';

export const DOCS_PAGE = 'docs/benchmarks.md';
export const DOCS_CHART = 'docs/benchmarks.svg';

/**
 * Writes docs/benchmarks.md, its chart and the README's summary block under `root` from `doc` (null: the placeholder
 * saying no full run was rendered yet, and no chart). The README is checked first, so a missing marker writes nothing.
 */
export async function writeBenchDocs(doc: ResultsDocument | null, root: string): Promise<string[]> {
  const readmeFile = path.join(root, 'README.md');
  const readme = replaceMarkedBlock(await readFile(readmeFile, 'utf8'), renderReadmeSummary(doc));
  const bars = doc === null ? [] : chartBars(doc);
  const chartFile = path.join(root, DOCS_CHART);
  if (doc !== null && bars.length > 0) await writeFile(chartFile, renderRatioChart(bars, chartTitle(doc)));
  else await rm(chartFile, { force: true });
  const chartLink = bars.length > 0 ? path.posix.relative(path.posix.dirname(DOCS_PAGE), DOCS_CHART) : null;
  await writeFile(path.join(root, DOCS_PAGE), renderBenchmarksPage(doc, chartLink));
  await writeFile(readmeFile, readme);
  return [DOCS_PAGE, ...(bars.length > 0 ? [DOCS_CHART] : []), 'README.md'];
}
