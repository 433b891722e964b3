import { Agent, request } from 'node:https';
import { isIP } from 'node:net';
import { TargetRefusedError, guardedLookup, isPublicAddress, urlHost } from './targets';

export interface WebhookPost {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export interface WebhookPostResult {
  /** Any 2xx. */
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  /** Why the attempt failed, for the delivery log; null on success. */
  error: string | null;
}

export interface SendOptions {
  agent: Agent;
  allowPrivate: boolean;
  /** Whole-request deadline: connect, TLS, request, response headers and body. */
  timeoutMs: number;
}

/** Read at most this much of a response (it is discarded; reading lets keep-alive reuse the socket). */
const MAX_RESPONSE_BYTES = 64 * 1024;
const MAX_ERROR_LENGTH = 500;

const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_|ERR_TLS|ERR_SSL|EPROTO/;

function describe(err: NodeJS.ErrnoException): string {
  if (err instanceof TargetRefusedError) return `refused: ${err.message}`;
  const code = err.code ?? '';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `DNS lookup failed (${code})`;
  if (TLS_CODES.test(code)) return `TLS error: ${err.message} (${code})`;
  return code ? `${err.message} (${code})` : err.message;
}

/** A keep-alive agent for webhook sends; `ca` replaces the default trust store (tests only need that). */
export function createWebhookAgent(options: { ca?: string | Buffer } = {}): Agent {
  return new Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16, scheduling: 'lifo', ...options });
}

/**
 * One POST, no redirects followed (a 3xx is a failure), a hard deadline, and the address policy enforced
 * at connect time through the resolver (an IP literal is never resolved, so it is judged here).
 */
export function postWebhook(post: WebhookPost, options: SendOptions): Promise<WebhookPostResult> {
  const started = performance.now();
  const url = new URL(post.url);
  const host = urlHost(url);
  if (url.protocol !== 'https:') {
    return Promise.resolve({ ok: false, statusCode: null, durationMs: 0, error: 'refused: url is not https' });
  }
  if (!options.allowPrivate && isIP(host) && !isPublicAddress(host)) {
    return Promise.resolve({ ok: false, statusCode: null, durationMs: 0, error: `refused: ${new TargetRefusedError(host, host).message}` });
  }

  return send(url, post, options, started, true);
}

function send(url: URL, post: WebhookPost, options: SendOptions, started: number, mayRetryStaleSocket: boolean): Promise<WebhookPostResult> {
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    let status: number | null = null;
    const finish = (result: Omit<WebhookPostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...result, durationMs: elapsed() });
    };
    // Once the status line is in, it decides; a body cut short, too long or too slow does not change it.
    const judgeStatus = (code: number) => {
      const ok = code >= 200 && code < 300;
      const error = ok ? null : code >= 300 && code < 400 ? `HTTP ${code} (redirects are not followed)` : `HTTP ${code}`;
      finish({ ok, statusCode: code, error });
    };
    const req = request(
      url,
      {
        method: 'POST',
        agent: options.agent,
        lookup: guardedLookup(options.allowPrivate),
        headers: { ...post.headers, 'Content-Length': String(Buffer.byteLength(post.body)) },
      },
      (res) => {
        const code = res.statusCode ?? 0;
        status = code;
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) res.destroy();
        });
        res.on('end', () => judgeStatus(code));
        res.on('close', () => judgeStatus(code));
        res.on('error', () => judgeStatus(code));
      },
    );
    const remaining = Math.max(1, options.timeoutMs - elapsed());
    const deadline = setTimeout(() => {
      req.destroy();
      if (status !== null) judgeStatus(status);
      else finish({ ok: false, statusCode: null, error: `timed out after ${options.timeoutMs} ms` });
    }, remaining);
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (status !== null) {
        judgeStatus(status);
      } else if (mayRetryStaleSocket && req.reusedSocket && err.code === 'ECONNRESET' && !settled) {
        // A kept-alive socket the receiver had already closed. Try once on a fresh connection (should the
        // receiver have read it after all, delivery is at-least-once and receivers dedupe on the event id).
        settled = true;
        clearTimeout(deadline);
        resolve(send(url, post, options, started, false));
      } else {
        finish({ ok: false, statusCode: null, error: describe(err).slice(0, MAX_ERROR_LENGTH) });
      }
    });
    req.end(post.body);
  });
}
