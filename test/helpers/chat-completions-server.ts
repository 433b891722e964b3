import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server received: what the client actually put on the wire. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/**
 * How to answer call `n` (1-based): `content` is the assistant message of a 200 completion; `status` with
 * `error` is an error answer in OpenAI's shape; `delayMs` holds the answer back; `destroy` drops the socket.
 */
export type Reply =
  | { content: string; delayMs?: number }
  | { status: number; error: string; delayMs?: number }
  | { destroy: true };

export interface ChatCompletionsServer {
  /** Base URL as the client is configured with it, e.g. http://127.0.0.1:41234/v1 */
  baseURL: string;
  requests: RecordedRequest[];
  /** Replaces the reply function; the call counter keeps running. */
  reply(fn: (n: number, request: RecordedRequest) => Reply | Promise<Reply>): void;
  close(): Promise<void>;
}

export function copyJson(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    description: 'A **great** product for testing, written by the provider.',
    seoTitle: 'Great Product | Test',
    metaDescription: 'Buy the great product for testing.',
    featureBullets: ['Fast', 'Reliable', 'Tested'],
    ...overrides,
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A real OpenAI-compatible HTTP server on an ephemeral loopback port implementing POST /v1/chat/completions. */
export async function startChatCompletionsServer(
  initial: (n: number, request: RecordedRequest) => Reply | Promise<Reply> = () => ({ content: copyJson() }),
): Promise<ChatCompletionsServer> {
  let replyFn = initial;
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    const answer = async () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        send(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } });
        return;
      }
      const request: RecordedRequest = {
        method: req.method,
        path: req.url,
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
      };
      requests.push(request);
      const reply = await replyFn(requests.length, request);
      if ('destroy' in reply) {
        req.socket.destroy();
        return;
      }
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (res.destroyed) return;
      if ('error' in reply) {
        send(res, reply.status, { error: { message: reply.error, type: 'server_error', code: null } });
        return;
      }
      send(res, 200, {
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: request.body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: reply.content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
      });
    };
    // A reply that throws (a test's reply function) answers 500 rather than leaving the request hanging.
    req.on('end', () => void answer().catch((err: unknown) => send(res, 500, { error: { message: String(err), type: 'server_error', code: null } })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    reply(fn) {
      replyFn = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
