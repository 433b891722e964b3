/**
 * Named points where a test stops a process to SIGKILL it there (test/e2e/idempotency-crash.test.ts): with
 * NODE_ENV=test and COMMERCE_TEST_PAUSE naming the point, the caller logs `paused at test hook` and waits forever.
 * Read from the environment here rather than the config: a seam for tests, inert in every other process.
 */
export type TestHookPoint = 'idempotency:before-commit' | 'idempotency:after-commit';

export async function pauseAtTestHook(point: TestHookPoint): Promise<void> {
  if (process.env.NODE_ENV !== 'test' || process.env.COMMERCE_TEST_PAUSE !== point) return;
  process.stdout.write(`${JSON.stringify({ level: 30, msg: 'paused at test hook', point })}\n`);
  await new Promise<never>(() => undefined);
}
