import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../api/app';
import { createCryptoBox, generateEncryptionKey, parseEncryptionKey } from '../../lib/crypto-box';
import { createLogger } from '../../lib/logger';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { ApiKey } from '../../db/models';
import type { CreatedWorkspace } from '../../domain/workspaces/service';

let ctx: TestContext;
let api: TestApi;
let ws: CreatedWorkspace;

beforeAll(async () => {
  ctx = await createTestContext();
  api = await ctx.startApi({ BODY_LIMIT: '2kb' });
  ws = await ctx.createWorkspace();
});
afterAll(() => ctx.close());

const KEYS = '/api/v1/account/api-keys';
const keyCount = () => ApiKey.count({ where: { accountId: ws.accountId } });

describe('the envelope', () => {
  it('wraps success as { data, error: null, meta: { requestId, timestamp } } with X-Request-Id', async () => {
    const res = await http(api.baseUrl, 'GET', '/api/v1/modules', { key: ws.secretKey });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'error', 'meta']);
    expect(res.body.error).toBeNull();
    expect(res.body.data).toEqual({ fulfillment: false, payment: false });
    const meta = res.body.meta as { requestId: string; timestamp: string };
    expect(meta.requestId).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(res.headers.get('x-request-id')).toBe(meta.requestId);
    expect(Date.now() - Date.parse(meta.timestamp)).toBeLessThan(60_000);
  });

  it('sends the envelope with its type and length and no ETag (every envelope differs); HEAD gets the headers alone', async () => {
    const get = await fetch(`${api.baseUrl}/api/v1/modules`, { headers: { authorization: `Bearer ${ws.secretKey}` } });
    const body = await get.text();
    expect(get.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(get.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(get.headers.get('etag')).toBeNull();

    const head = await fetch(`${api.baseUrl}/api/v1/modules`, { method: 'HEAD', headers: { authorization: `Bearer ${ws.secretKey}` } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // Same data, and a request id and timestamp of fixed length: the length the GET's body had.
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(await head.text()).toBe('');
  });

  it('gives every request its own id', async () => {
    const a = await http(api.baseUrl, 'GET', '/api/v1/modules', { key: ws.secretKey });
    const b = await http(api.baseUrl, 'GET', '/api/v1/modules', { key: ws.secretKey });
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });
});

describe('transport errors', () => {
  it.each([
    ['malformed JSON', '{"name": "x",', 'application/json', 400, 'VALIDATION_ERROR'],
    ['a non-JSON Content-Type', 'name=x&environment=test&access=secret', 'application/x-www-form-urlencoded', 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ])('answers %s with %i %s and writes nothing', async (_case, rawBody, contentType, status, code) => {
    const before = await keyCount();
    const res = await http(api.baseUrl, 'POST', KEYS, { key: ws.secretKey, rawBody, headers: { 'content-type': contentType } });
    expectError(res, status, code);
    expect(await keyCount()).toBe(before);
  });

  it('answers an over-size body with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await http(api.baseUrl, 'POST', KEYS, {
      key: ws.secretKey,
      body: { name: 'x'.repeat(5000), environment: 'test', access: 'secret' },
    });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('answers an unknown route with 404 ROUTE_NOT_FOUND in the envelope', async () => {
    expectError(await http(api.baseUrl, 'GET', '/api/v1/nothing-here', { key: ws.secretKey }), 404, 'ROUTE_NOT_FOUND');
    expectError(await http(api.baseUrl, 'GET', '/api/v1/account/api-keys/key_1/nothing', { key: ws.secretKey }), 404, 'ROUTE_NOT_FOUND');
  });

  it('names the unknown field of a strict body', async () => {
    const res = await http(api.baseUrl, 'POST', KEYS, {
      key: ws.secretKey,
      body: { name: 'x', environment: 'test', access: 'secret', role: 'admin' },
    });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(res.body.error)).toContain('role');
  });

  it('never leaks a stack trace or SQL text', async () => {
    const res = await http(api.baseUrl, 'POST', KEYS, {
      key: ws.secretKey,
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.text).not.toMatch(/at .+\.(ts|js):\d+|SELECT|INSERT|node_modules/);
  });
});

describe('health', () => {
  it('serves /healthz and /readyz outside /api', async () => {
    expect((await http(api.baseUrl, 'GET', '/healthz')).status).toBe(200);
    const ready = await http(api.baseUrl, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ database: true, temporal: true });
  });

  it('answers /readyz 503 when Temporal does not answer', async () => {
    // A lazy connection to a port nobody listens on.
    const connection = Connection.lazy({ address: '127.0.0.1:1' });
    const { app, close } = createApp({
      config: ctx.config,
      sequelize: ctx.sequelize,
      temporal: new Client({ connection }),
      logger: createLogger('silent', 't'),
      box: createCryptoBox(parseEncryptionKey(generateEncryptionKey())),
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const port = (server.address() as { port: number }).port;
    const res = await http(`http://127.0.0.1:${port}`, 'GET', '/readyz');
    server.close();
    await close();
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ database: true, temporal: false });
  });
});
