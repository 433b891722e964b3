import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '../../lib/logger';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { streamUpload } from '../helpers/multipart';
import type { CreatedWorkspace } from '../../domain/workspaces/service';

let ctx: TestContext;
let api: TestApi;
let ws: CreatedWorkspace;
/** Every line the API logged, parsed. */
const logLines: { level: number; msg: string; err?: unknown }[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      callback();
    },
  });
  api = await ctx.startApi({}, { logger: createLogger('info', 'http-hardening', sink) });
  ws = await ctx.createWorkspace();
});
afterAll(() => ctx.close());

const PINO_ERROR = 50;

describe('a path that does not decode', () => {
  it('answers a malformed percent-encoding in a path parameter with 400 VALIDATION_ERROR, no key needed, nothing logged as an error', async () => {
    logLines.length = 0;
    const res = await http(api.baseUrl, 'GET', '/api/v1/storefront/products/%FF%FE');
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.text).not.toMatch(/URIError|at .+\.(ts|js):\d+/);
    expect(logLines.filter((l) => l.level >= PINO_ERROR)).toEqual([]);
  });

  it('still answers a well-formed id that does not exist with 404', async () => {
    const res = await http(api.baseUrl, 'GET', `/api/v1/storefront/products/${encodeURIComponent('prod_ü')}`, { key: ws.secretKey });
    expect(res.status).toBe(404);
  });
});

/** node:http, because fetch refuses methods such as TRACE. */
function rawRequest(method: string, path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${api.baseUrl}${path}`, { method }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a known path with a method it does not serve', () => {
  it.each([
    ['PUT', '/api/v1/account/api-keys', 'GET, HEAD, POST'],
    ['TRACE', '/api/v1/account/api-keys', 'GET, HEAD, POST'],
    ['PUT', '/api/v1/storefront/products/prod_1', 'GET, HEAD, PATCH, DELETE'],
    ['GET', '/api/v1/storefront/products/prod_1/files', 'POST'],
  ])('answers %s %s with 405 METHOD_NOT_ALLOWED and Allow: %s', async (method, path, allow) => {
    const res = await rawRequest(method, path);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.body).toMatchObject({ data: null, error: { code: 'METHOD_NOT_ALLOWED' } });
  });

  it.each([
    ['/api/v1/storefront/public/track', 'POST'],
    ['/api/v1/storefront/public/acme', 'GET, HEAD'],
    ['/api/v1/storefront/licenses/validate', 'GET, HEAD'],
    ['/api/v1/storefront/licenses/ABCDEF-2345-6789-ABCD-EFGH', 'GET, HEAD, DELETE'],
    ['/api/v1/account/api-keys', 'GET, HEAD, POST'],
  ])('answers OPTIONS %s with 204 and the methods of the one documented path it belongs to: %s', async (path, allow) => {
    const res = await rawRequest('OPTIONS', path);
    expect(res.status).toBe(204);
    expect(res.headers.allow).toBe(allow);
  });

  it('keeps 404 for a path nothing serves', async () => {
    expectError(await http(api.baseUrl, 'PUT', '/api/v1/account/nothing', { key: ws.secretKey }), 404, 'ROUTE_NOT_FOUND');
  });
});

describe('security headers', () => {
  it('sends nosniff and a deny-all CSP on API responses, and no-store on authenticated ones (a new key value)', async () => {
    const res = await http(api.baseUrl, 'POST', '/api/v1/account/api-keys', {
      key: ws.secretKey,
      body: { name: 'ci', environment: 'test', access: 'secret' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
  });

  it('sends no-store on a webhook secret, on a list and on a refused key', async () => {
    const created = await http(api.baseUrl, 'POST', '/api/v1/payment/webhook-endpoints', { key: ws.secretKey, body: { url: 'https://hooks.example.com/x' } });
    expect(created.status).toBe(201);
    const list = await http(api.baseUrl, 'GET', '/api/v1/account/api-keys', { key: ws.secretKey });
    const refused = await http(api.baseUrl, 'GET', '/api/v1/account/api-keys', { key: 'sk_test_nope' });
    expect(refused.status).toBe(401);
    for (const res of [created, list, refused]) expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('keeps /healthz and /readyz working, with the same headers', async () => {
    const health = await http(api.baseUrl, 'GET', '/healthz');
    const ready = await http(api.baseUrl, 'GET', '/readyz');
    expect([health.status, ready.status]).toEqual([200, 200]);
    expect(health.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves the docs page under a CSP that its own scripts and styles satisfy', async () => {
    const page = await http(api.baseUrl, 'GET', '/api/docs/');
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    // No inline script: every <script> has a src, and 'self' then covers them.
    expect(page.text.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toBeNull();
    const assets = [...page.text.matchAll(/(?:src|href)=["']\.\/([^"']+)["']/g)].map((m) => m[1]!);
    expect(assets).toEqual(expect.arrayContaining(['swagger-ui-bundle.js', 'swagger-ui-init.js', 'swagger-ui.css']));
    for (const asset of assets) {
      const res = await fetch(`${api.baseUrl}/api/docs/${asset}`);
      await res.arrayBuffer();
      expect({ asset, status: res.status }).toEqual({ asset, status: 200 });
    }
  });
});

interface SlowRequest {
  socket: Socket;
  /** The raw response (head and body) and when its first byte came, in ms after the request was opened. */
  response: Promise<{ raw: string; after: number }>;
  /** When the server closed the connection, in ms after the request was opened. */
  closed: Promise<number>;
}

/** Sends a request head declaring a body of `declared` bytes and then only `sent` of them, over a raw socket. */
function slowRequest(baseUrl: string, method: string, path: string, headers: Record<string, string>, declared: number, sent: string): SlowRequest {
  const { port } = new URL(baseUrl);
  const socket = connect(Number(port), '127.0.0.1');
  const started = Date.now();
  const head = Object.entries({ host: `127.0.0.1:${port}`, 'content-length': String(declared), ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n${sent}`);
  let raw = '';
  let firstByte = 0;
  const response = new Promise<{ raw: string; after: number }>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      firstByte ||= Date.now() - started;
      raw += chunk.toString('utf8');
      const [responseHead, body = ''] = raw.split('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(responseHead ?? '')?.[1];
      if (length !== undefined && Buffer.byteLength(body) >= Number(length)) resolve({ raw, after: firstByte });
    });
  });
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - started)));
  socket.on('error', () => undefined);
  return { socket, response, closed };
}

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);

describe('reading the body after authentication, within a deadline', () => {
  let short: TestApi;
  beforeAll(async () => {
    short = await ctx.startApi({ REQUEST_TIMEOUT: '1s' });
  });

  it('refuses a request without a key at once, without waiting for its slow body, and then lets go of the socket', async () => {
    const req = slowRequest(short.baseUrl, 'POST', '/api/v1/account/api-keys', { 'content-type': 'application/json' }, 1000, '{"name":');
    const { raw, after } = await req.response;
    expect(statusOf(raw)).toBe(401);
    expect(raw).toContain('AUTHENTICATION_REQUIRED');
    expect(after).toBeLessThan(900);
    // The client keeps the rest of the body to itself: the server stops waiting for it at the deadline.
    expect(await req.closed).toBeLessThan(5_000);
  });

  it('cuts a slow body on an authenticated route after the deadline with 408 REQUEST_TIMEOUT and closes the connection', async () => {
    const req = slowRequest(
      short.baseUrl,
      'POST',
      '/api/v1/account/api-keys',
      { 'content-type': 'application/json', authorization: `Bearer ${ws.secretKey}` },
      1000,
      '{"name":',
    );
    const { raw, after } = await req.response;
    expect(statusOf(raw)).toBe(408);
    expect(raw).toContain('REQUEST_TIMEOUT');
    expect(raw).toMatch(/connection: close/i);
    expect(after).toBeGreaterThanOrEqual(900);
    expect(after).toBeLessThan(5_000);
    expect(await req.closed).toBeLessThan(6_000);
  });

  it('still answers a body that arrives in time', async () => {
    const res = await http(short.baseUrl, 'POST', '/api/v1/account/api-keys', { key: ws.secretKey, body: { name: 'on time', environment: 'test', access: 'secret' } });
    expect(res.status).toBe(201);
  });

  it('lets an upload take longer than the deadline', async () => {
    const product = await http<{ data: { id: string } }>(short.baseUrl, 'POST', '/api/v1/storefront/products', {
      key: ws.secretKey,
      body: { name: 'Slow upload', price: 10, currency: 'USD', type: 'digital' },
    });
    expect(product.status).toBe(201);
    const gate = new Promise<void>((resolve) => setTimeout(resolve, 2_500));
    const res = await streamUpload(short.baseUrl, `/api/v1/storefront/products/${product.body.data.id}/files`, { key: ws.secretKey, size: 4096, pauseAfter: 100, gate });
    expect(res.status).toBe(201);
  });
});
