import type { TestHookPoint } from '../../lib/test-hooks';
import { freePort } from '../../scripts/lib/free-port';
import { http } from './context';
import { waitFor } from './wait';
import { startWorkerProcess, type WorkerProcess } from './worker-process';

/**
 * A request sent to `api/main.ts` (as deployed, its own process) paused at a test hook (lib/test-hooks.ts) and
 * SIGKILLed there, for the crash tests of requests under an Idempotency-Key.
 */
export interface Call {
  method: string;
  path: string;
  key: string;
  body?: unknown;
}

export const sendWithKey = (baseUrl: string, call: Call, idempotencyKey: string) =>
  http(baseUrl, call.method, call.path, { key: call.key, ...(call.body !== undefined ? { body: call.body } : {}), headers: { 'idempotency-key': idempotencyKey } });

async function pausedApi(env: Record<string, string>, point: TestHookPoint): Promise<{ baseUrl: string; process: WorkerProcess }> {
  const port = await freePort();
  const child = await startWorkerProcess(
    { ...env, PORT: String(port), NODE_ENV: 'test', COMMERCE_TEST_PAUSE: point },
    { script: 'api/main.ts', startedMessage: 'api listening' },
  );
  return { baseUrl: `http://127.0.0.1:${port}`, process: child };
}

/**
 * Sends `call` to an API (started with `env`) paused at `point`, waits until it is there, runs `whilePaused`, and
 * SIGKILLs it: the call never gets an answer.
 */
export async function killedAt(env: Record<string, string>, point: TestHookPoint, call: Call, idempotencyKey: string, whilePaused?: () => Promise<void>): Promise<void> {
  const api = await pausedApi(env, point);
  const answer = sendWithKey(api.baseUrl, call, idempotencyKey).then(
    (res) => res,
    (err: unknown) => err,
  );
  let early: unknown;
  void answer.then((res) => (early = res));
  try {
    await waitFor(
      async () => {
        if (early && typeof early === 'object' && 'status' in early) throw new Error(`answered before pausing at ${point}: ${JSON.stringify(early)}`);
        return api.process.output().includes('paused at test hook');
      },
      { timeoutMs: 60_000, describe: () => `the API to pause at ${point}\n${api.process.output()}` },
    );
    await whilePaused?.();
  } finally {
    await api.process.kill();
  }
  // No answer: the connection died with the process (fetch's TypeError comes from another realm than this file's Error).
  expect(await answer).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
}
