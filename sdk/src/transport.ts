/**
 * The fetch the generated client runs on: bounded retries of the same request (same `Idempotency-Key`, so the API
 * replays instead of running it twice) after a 429, and where a second send is safe after a 503, a 409
 * IDEMPOTENCY_KEY_IN_USE (the first try is still running) or no answer at all, waiting as `Retry-After` says.
 */

export interface RetryOptions {
  /** Retries after the first try (default 2; 0 turns retrying off). */
  maxRetries?: number;
  /** The longest wait before a retry, in ms (default 10 000): a `Retry-After` asking for more ends the retries. */
  maxDelayMs?: number;
  /** The first backoff, in ms, where the answer names no wait (default 500); it doubles on each retry. */
  baseDelayMs?: number;
}

export interface TransportOptions {
  fetch?: (request: Request) => Promise<Response>;
  retry?: RetryOptions;
  /**
   * Whether a request may be sent again when it may have run (no answer came back, or a 503): by default a read, or
   * a request carrying an Idempotency-Key. Others are retried only after a 429.
   */
  resendable?: (request: Request) => boolean;
}

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const isRead = (request: Request): boolean => READS.has(request.method);
export const readOrKeyed = (request: Request): boolean => isRead(request) || request.headers.has(IDEMPOTENCY_HEADER);

/** `Retry-After` in ms: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

async function isKeyInUse(response: Response): Promise<boolean> {
  if (response.status !== 409) return false;
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown } };
    return body.error?.code === 'IDEMPOTENCY_KEY_IN_USE';
  } catch {
    return false;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function createTransport(options: TransportOptions = {}): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const maxRetries = options.retry?.maxRetries ?? 2;
  const maxDelayMs = options.retry?.maxDelayMs ?? 10_000;
  const baseDelayMs = options.retry?.baseDelayMs ?? 500;
  const resendable = options.resendable ?? readOrKeyed;

  /** How long to wait before retrying after this outcome, or null when it is final. */
  async function delayAfter(request: Request, attempt: number, response: Response | undefined): Promise<number | null> {
    // Half to all of the doubling backoff, so clients that failed together do not retry together.
    const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt) * (0.5 + Math.random() / 2);
    const safe = resendable(request);
    if (!response) return safe ? backoff : null;
    // A 429 is refused before anything runs; a 503 of a request that is not resendable may have done part of it.
    if (!safe && response.status !== 429) return null;
    if (response.status !== 429 && response.status !== 503 && !(await isKeyInUse(response))) return null;
    const asked = retryAfterMs(response.headers.get('retry-after'));
    if (asked === null) return backoff;
    return asked <= maxDelayMs ? asked : null;
  }

  return async (request) => {
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt >= maxRetries;
      let response: Response | undefined;
      let failure: unknown;
      try {
        // Each try sends a copy, so the body is still there for the next one.
        response = await send(last ? request : request.clone());
      } catch (err) {
        if (request.signal.aborted) throw err;
        failure = err;
      }
      const delay = last ? null : await delayAfter(request, attempt, response);
      if (delay === null) {
        if (response) return response;
        throw failure;
      }
      await response?.body?.cancel();
      await sleep(delay, request.signal);
    }
  };
}
