/** Reading Prometheus' text exposition format (what /metrics serves) in tests. */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** `# TYPE` of each metric family. */
  types: Map<string, string>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses an exposition; throws on a line that is neither a comment nor a sample, as Prometheus would refuse it. */
export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (type) {
        if (types.has(type[1]!)) throw new Error(`metric family ${type[1]} is declared twice`);
        types.set(type[1]!, type[2]!);
      }
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return { samples, types };
}

/** The sum of the samples named `name` whose labels include `labels` (0 when there is none). */
export function sampleSum(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  return exposition.samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** The one sample named `name` with exactly these labels, if any. */
export function sample(exposition: Exposition, name: string, labels: Record<string, string> = {}): Sample | undefined {
  return exposition.samples.find((s) => s.name === name && Object.keys(s.labels).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** Every series name an exposition exports: its samples' names, and each declared family's (a histogram's `_bucket`, `_sum`, `_count`). */
export function exportedNames(exposition: Exposition): Set<string> {
  const names = new Set(exposition.samples.map((s) => s.name));
  for (const [family, type] of exposition.types) {
    names.add(family);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${family}${suffix}`);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${family}${suffix}`);
  }
  return names;
}

/** GETs an exposition over a real socket; fails unless it answers 200 in the text format. */
export async function scrape(url: string): Promise<Exposition> {
  const response = await fetch(url);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text}`);
  if (!response.headers.get('content-type')?.startsWith('text/plain; version=0.0.4')) throw new Error(`${url} answered ${response.headers.get('content-type')}`);
  return parseExposition(text);
}

/** PromQL words that are no metric: aggregation modifiers, set and vector-matching operators, `offset`, `bool`. */
const PROMQL_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);

/**
 * The metric names a PromQL expression selects: what is left once strings, label matchers, range and subquery
 * brackets and grouping label lists are removed, and neither a keyword nor a function call (a name before `(`).
 */
export function promqlMetricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names: string[] = [];
  for (const match of bare.matchAll(/(?<![\w.:$])[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const rest = bare.slice(match.index + match[0].length).trimStart();
    if (rest.startsWith('(') || PROMQL_KEYWORDS.has(match[0].toLowerCase())) continue;
    names.push(match[0]);
  }
  return [...new Set(names)];
}
