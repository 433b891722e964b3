/**
 * One 200 MB multipart upload through the real API process (`api/main.ts`): throughput, and the process's
 * resident memory before and at its peak during the upload (VmRSS / VmHWM from /proc; the peak is reset just
 * before the upload where the kernel allows it). Streaming keeps the growth to a few MB whatever the size.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../scripts/lib/free-port';
import { streamUpload } from '../test/helpers/multipart';
import { startServer } from './lib/child-server';
import { fullStackServer, type BenchContext } from './scenarios';

export const UPLOAD_BYTES = 200_000_000;

export interface UploadResult {
  bytes: number;
  seconds: number;
  megabytesPerSecond: number;
  rssBeforeMb: number;
  peakRssMb: number;
  /** peakRssMb - rssBeforeMb */
  growthMb: number;
  /** false where /proc/<pid>/clear_refs could not reset the peak: it then includes start-up. */
  peakResetBeforeUpload: boolean;
}

const MB = 1_000_000;

function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

export async function runProductUpload(ctx: BenchContext, log: (line: string) => void): Promise<UploadResult> {
  const storageDir = await mkdtemp(path.join(tmpdir(), 'commerce-bench-files-'));
  const spec = fullStackServer(ctx);
  const server = await startServer('product upload / full stack', { ...spec, env: { ...spec.env, FILE_STORAGE_DIR: storageDir } }, await freePort());
  try {
    if (server.pid === undefined) throw new Error('no pid for the API process');
    const key = ctx.infra.catalogue.create.secretKey;
    const created = await fetch(`${server.baseUrl}/api/v1/storefront/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Upload bench', price: 1, currency: 'USD', type: 'digital' }),
    });
    const productId = ((await created.json()) as { data: { id: string } }).data.id;
    const route = `/api/v1/storefront/products/${productId}/files`;

    // Warm-up: the route's code paths loaded and JIT-compiled before the measured upload.
    const warm = await streamUpload(server.baseUrl, route, { key, size: 5 * MB, fileName: 'warm-up.bin' });
    if (warm.status !== 201) throw new Error(`warm-up upload answered ${warm.status}: ${warm.text.slice(0, 300)}`);

    let peakResetBeforeUpload = true;
    try {
      writeFileSync(`/proc/${server.pid}/clear_refs`, '5');
    } catch {
      peakResetBeforeUpload = false;
    }
    const before = memory(server.pid);
    log(`product upload: ${UPLOAD_BYTES / MB} MB through the full stack`);
    const started = performance.now();
    const res = await streamUpload(server.baseUrl, route, { key, size: UPLOAD_BYTES, fileName: 'bench.bin' });
    const seconds = (performance.now() - started) / 1000;
    if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${res.text.slice(0, 300)}`);
    const after = memory(server.pid);
    server.assertAlive();
    return {
      bytes: UPLOAD_BYTES,
      seconds,
      megabytesPerSecond: UPLOAD_BYTES / MB / seconds,
      rssBeforeMb: before.rss / MB,
      peakRssMb: after.hwm / MB,
      growthMb: (after.hwm - before.rss) / MB,
      peakResetBeforeUpload,
    };
  } finally {
    await server.stop();
    await rm(storageDir, { recursive: true, force: true });
  }
}

export function renderUploadLine(r: UploadResult): string {
  const f = (n: number) => n.toFixed(1);
  return (
    `product upload: ${f(r.bytes / MB)} MB in ${r.seconds.toFixed(2)} s = ${f(r.megabytesPerSecond)} MB/s; ` +
    `API RSS ${f(r.rssBeforeMb)} MB before, peak ${f(r.peakRssMb)} MB (+${f(r.growthMb)} MB)` +
    (r.peakResetBeforeUpload ? '' : ' [peak not reset: includes start-up]')
  );
}
