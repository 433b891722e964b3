/** Knobs a run can override from the environment; defaults suit a 2-core machine on loopback. */
export interface BenchOptions {
  /** Seconds measured per server. */
  duration: number;
  /** Seconds of discarded load before each measurement (JIT, pool, PostgreSQL caches). */
  warmup: number;
  /** Concurrent HTTP connections autocannon keeps open. */
  connections: number;
  /** pg pool size, the same for the ceiling and the full stack. */
  poolSize: number;
  /** Run only the scenarios whose name contains this text. */
  only: string | undefined;
  /**
   * Pairs (ceiling, then full stack) measured per HTTP scenario; the table shows the pair of median ratio. On a
   * machine whose load swings between the two sides of one pair, the median of several is the figure to read.
   */
  rounds: number;
  /** Sessions of the checkout completion throughput run (the 1,000; fewer for a quick look). */
  completions: number;
}

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

export function readOptions(): BenchOptions {
  return {
    duration: positiveInt('BENCH_DURATION', 10),
    warmup: positiveInt('BENCH_WARMUP', 3),
    connections: positiveInt('BENCH_CONNECTIONS', 32),
    poolSize: positiveInt('BENCH_POOL_SIZE', 10),
    only: process.env.BENCH_ONLY || undefined,
    rounds: positiveInt('BENCH_ROUNDS', 1),
    completions: positiveInt('BENCH_COMPLETIONS', 1_000),
  };
}
