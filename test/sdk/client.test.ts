import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ErrorCode } from '../../lib/errors';
import { CommerceError, createCommerceClient, retryAfterMs, type CommerceClient, type CommerceErrorCode } from '../../sdk/src';

/**
 * The SDK's transport rules over real sockets, against a loopback server that answers as the test script says:
 * the Idempotency-Key it adds or keeps, which answers it retries (and with the same key), how long it waits, and
 * where it stops. The merchant journey against the real API is test/sdk/journey.test.ts.
 */

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}
type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | 'cut';

let server: Server;
let baseUrl: string;
let seen: Seen[];
let script: Answer[];

const envelope = (data: unknown) => ({ data, error: null, meta: { requestId: 'req_ok', timestamp: new Date().toISOString() } });
const failure = (code: string, message = code, details?: unknown) => ({ data: null, error: { code, message, details }, meta: { requestId: `req_${code}`, timestamp: new Date().toISOString() } });
const product = { id: 'prod_01JD4X7V1QZ8N6Y3K2M5P9R0TS', name: 'Field notes' };

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const answer = script.shift() ?? { status: 500, body: failure('INTERNAL_ERROR') };
      if (answer === 'cut') {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? envelope(null)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);
beforeEach(() => {
  seen = [];
  script = [];
});

const client = (options: Partial<Parameters<typeof createCommerceClient>[0]> = {}): CommerceClient =>
  createCommerceClient({ baseUrl, secretKey: 'sk_test_abc', retry: { baseDelayMs: 20 }, ...options });
const createProduct = (c: CommerceClient, headers?: Record<string, string>) =>
  c.post('/v1/storefront/products', { body: { name: 'Field notes', price: 12, currency: 'USD', type: 'digital' }, headers });

async function refusal(promise: Promise<unknown>): Promise<CommerceError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof CommerceError)) throw new Error(`expected a CommerceError, got ${String(err)}`);
  return err;
}

describe('requests', () => {
  it('sends the key and workspace headers under {baseUrl}/api, and answers the envelope’s data', async () => {
    script = [{ status: 201, body: envelope(product) }];
    const created = await createProduct(client({ baseUrl: `${baseUrl}/`, accountId: 'acc_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }));
    expect(created).toEqual(product);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/v1/storefront/products' });
    expect(seen[0]!.headers).toMatchObject({ authorization: 'Bearer sk_test_abc', 'x-account-id': 'acc_01JD4X7V1QZ8N6Y3K2M5P9R0TS', 'content-type': 'application/json' });
    expect(JSON.parse(seen[0]!.body)).toEqual({ name: 'Field notes', price: 12, currency: 'USD', type: 'digital' });
  });

  it('gives every mutating request a fresh Idempotency-Key, keeps the caller’s, and sends none on reads', async () => {
    script = [{ status: 201, body: envelope(product) }, { status: 201, body: envelope(product) }, { status: 201, body: envelope(product) }, { status: 200, body: envelope(product) }];
    const c = client();
    await createProduct(c);
    await createProduct(c);
    await c.post('/v1/storefront/products', { body: { name: 'x', price: 1, currency: 'USD', type: 'digital' }, params: { header: { 'idempotency-key': 'order-42' } } });
    await c.get('/v1/storefront/products/{id}', { params: { path: { id: product.id } } });
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).not.toBe(keys[0]);
    expect(keys.slice(2)).toEqual(['order-42', undefined]);
  });
});

describe('retries', () => {
  it('retries a 503 after its Retry-After with the same key and body, and answers the retry', async () => {
    script = [{ status: 503, body: failure('SERVICE_UNAVAILABLE'), headers: { 'retry-after': '1' } }, { status: 201, body: envelope(product) }];
    expect(await createProduct(client())).toEqual(product);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
    expect(seen[1]!.headers['idempotency-key']).toBe(seen[0]!.headers['idempotency-key']);
    expect(seen[1]!.body).toBe(seen[0]!.body);
  });

  it('retries a lost answer (the connection cut) under the same key', async () => {
    script = ['cut', { status: 201, body: envelope(product) }];
    expect(await createProduct(client(), { 'Idempotency-Key': 'mine' })).toEqual(product);
    expect(seen.map((s) => s.headers['idempotency-key'])).toEqual(['mine', 'mine']);
  });

  it('never resends a mutation of a route that ignores the key when it may have run; a 429 it retries', async () => {
    const pay = (c: CommerceClient) => c.post('/v1/payment/checkout-sessions/{id}/pay', { params: { path: { id: 'cs_1' } }, body: { paymentMethod: 'va' } });
    const buyer = client({ secretKey: undefined });
    script = ['cut'];
    expect((await refusal(pay(buyer))).code).toBe('NETWORK_ERROR');
    script = [{ status: 503, body: failure('SERVICE_UNAVAILABLE'), headers: { 'retry-after': '0' } }];
    expect((await refusal(pay(buyer))).code).toBe('SERVICE_UNAVAILABLE');
    script = [{ status: 429, body: 'Too Many Requests', headers: { 'retry-after': '0', 'content-type': 'text/plain' } }, { status: 200, body: envelope({ status: 'pending_review' }) }];
    expect(await pay(buyer)).toEqual({ status: 'pending_review' });
    expect(seen.map((s) => [s.url, s.headers['idempotency-key'], s.headers.authorization])).toEqual(Array(4).fill(['/api/v1/payment/checkout-sessions/cs_1/pay', undefined, undefined]));
  });

  it('retries 409 IDEMPOTENCY_KEY_IN_USE (the first try still runs) but no other conflict', async () => {
    script = [{ status: 409, body: failure('IDEMPOTENCY_KEY_IN_USE'), headers: { 'retry-after': '0' } }, { status: 201, body: envelope(product) }];
    expect(await createProduct(client())).toEqual(product);
    expect(seen).toHaveLength(2);

    seen = [];
    script = [{ status: 409, body: failure('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request') }];
    const err = await refusal(createProduct(client()));
    expect([err.status, err.code, err.requestId]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED', 'req_IDEMPOTENCY_KEY_REUSED']);
    expect(seen).toHaveLength(1);
  });

  it('stops after maxRetries, then throws the last refusal typed by its code', async () => {
    const limited = { status: 429, body: failure('RATE_LIMITED', 'Too many requests'), headers: { 'retry-after': '0', 'x-request-id': 'req_header' } };
    script = [limited, limited, limited, limited];
    const err = await refusal(createProduct(client({ retry: { maxRetries: 2, baseDelayMs: 10 } })));
    expect(seen).toHaveLength(3);
    expect(err).toMatchObject({ name: 'CommerceError', status: 429, code: 'RATE_LIMITED', message: 'Too many requests', requestId: 'req_RATE_LIMITED' });
    expect(CommerceError.is(err, 'RATE_LIMITED')).toBe(true);
    expect(CommerceError.is(err, 'RESOURCE_NOT_FOUND')).toBe(false);
  });

  it('does not wait longer than maxDelayMs: a longer Retry-After ends the retries', async () => {
    script = [{ status: 503, body: failure('SERVICE_UNAVAILABLE'), headers: { 'retry-after': '120' } }];
    const started = Date.now();
    expect((await refusal(createProduct(client({ retry: { maxDelayMs: 5_000 } })))).code).toBe('SERVICE_UNAVAILABLE');
    expect(seen).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('answers NETWORK_ERROR (status 0, the fetch error as cause) when no try got an answer', async () => {
    script = ['cut', 'cut'];
    const err = await refusal(createProduct(client({ retry: { maxRetries: 1, baseDelayMs: 10 } })));
    expect(seen).toHaveLength(2);
    expect([err.status, err.code, err.requestId]).toEqual([0, 'NETWORK_ERROR', null]);
    expect((err.cause as Error).message).toBe('fetch failed');
    expect(err.message).toBe('POST /v1/storefront/products: no answer (fetch failed)');
  });

  it('stops waiting for a retry when the caller aborts, and throws the abort as it is', async () => {
    script = [{ status: 503, body: failure('SERVICE_UNAVAILABLE'), headers: { 'retry-after': '5' } }];
    const started = Date.now();
    const err = await client()
      .post('/v1/storefront/products', { body: { name: 'x', price: 1, currency: 'USD', type: 'digital' }, signal: AbortSignal.timeout(300) })
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(err?.name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(seen).toHaveLength(1);
  });

  it('never retries a refusal such as 400 VALIDATION_ERROR, and keeps its details', async () => {
    const details = [{ field: 'price', message: 'Too small: expected number to be >0' }];
    script = [{ status: 400, body: failure('VALIDATION_ERROR', 'Invalid request body', details) }];
    const err = await refusal(createProduct(client()));
    expect(seen).toHaveLength(1);
    expect(err).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', message: 'Invalid request body', details });
  });

  it('types an answer that is no envelope as UNKNOWN_ERROR, with the X-Request-Id header', async () => {
    script = [{ status: 502, body: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html', 'x-request-id': 'req_proxy' } }];
    const err = await refusal(createProduct(client()));
    expect(err).toMatchObject({ status: 502, code: 'UNKNOWN_ERROR', requestId: 'req_proxy' });
    expect(err.message).toContain('Bad gateway');
  });
});

describe('lists', () => {
  it('follows meta.page.nextCursor page by page, keeping the query and path', async () => {
    const page = (ids: string[], nextCursor: string | null) => ({ status: 200, body: { ...envelope(ids.map((eventId) => ({ eventId }))), meta: { requestId: 'req_x', timestamp: '', page: { nextCursor } } } });
    script = [page(['a', 'b'], 'c1'), page(['c', 'd'], 'c2'), page(['e'], null)];
    const ids: string[] = [];
    for await (const item of client().list('/v1/payment/webhook-endpoints/{id}/deliveries', { path: { id: 'whe_1' }, query: { limit: 2 } })) ids.push(item.eventId);
    expect(ids).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(seen.map((s) => s.url)).toEqual([
      '/api/v1/payment/webhook-endpoints/whe_1/deliveries?limit=2',
      '/api/v1/payment/webhook-endpoints/whe_1/deliveries?limit=2&cursor=c1',
      '/api/v1/payment/webhook-endpoints/whe_1/deliveries?limit=2&cursor=c2',
    ]);
  });
});

// Held by tsc: the codes the generated document lists are exactly the service's (lib/errors.ts).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const codesMatch: Same<CommerceErrorCode, ErrorCode> = true;

it('types CommerceError.code by the service’s own error codes', () => {
  expect(codesMatch).toBe(true);
});

it('reads Retry-After as seconds or as an HTTP date', () => {
  expect(retryAfterMs('3')).toBe(3000);
  expect(retryAfterMs(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(10_000);
  expect([retryAfterMs(null), retryAfterMs('soon')]).toEqual([null, null]);
});
