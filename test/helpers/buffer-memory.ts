import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';

/** V8's full collection, which jest's workers do not expose: the flag set at run time is seen by a new context. */
export function garbageCollector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/**
 * The most Buffer memory `work` holds at once above what was held before, sampled every 20 ms with the garbage
 * collected every 200 ms: what the process holds, whatever the collector's lag on a loaded machine.
 */
export async function peakBufferMemory(work: () => Promise<void>): Promise<number> {
  const collectGarbage = garbageCollector();
  collectGarbage();
  const baseline = process.memoryUsage().arrayBuffers;
  let peak = baseline;
  let samples = 0;
  const sampler = setInterval(() => {
    samples += 1;
    if (samples % 10 === 0) collectGarbage();
    peak = Math.max(peak, process.memoryUsage().arrayBuffers);
  }, 20);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return peak - baseline;
}
