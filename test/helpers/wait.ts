/**
 * Polls `probe` until it returns something other than `undefined` or `false`, and returns that. Tests wait
 * for asynchronous effects this way instead of sleeping a guessed time, which flakes on a loaded machine.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | false>,
  { timeoutMs = 20_000, intervalMs = 50, describe = () => probe.toString() }: { timeoutMs?: number; intervalMs?: number; describe?: () => string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${describe()}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
