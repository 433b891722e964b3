import { ApiKey, IdempotencyKey } from '../../db/models';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { expectError } from '../helpers/expect';

let ctx: TestContext;
let api: TestApi;

beforeAll(async () => {
  ctx = await createTestContext();
  api = await ctx.startApi();
});
afterAll(() => ctx.close());

const KEYS = '/api/v1/account/api-keys';
const body = { name: 'idempotent', environment: 'test', access: 'secret' };

describe('Idempotency-Key', () => {
  it('replays the stored status and body for the same key and request', async () => {
    const ws = await ctx.createWorkspace();
    const headers = { 'idempotency-key': 'create-1' };
    const first = await http(api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers });
    const second = await http(api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body: { access: 'secret', environment: 'test', name: 'idempotent' }, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await ApiKey.count({ where: { accountId: ws.accountId } })).toBe(5);
  });

  it('stores the replayable response encrypted, never the one-time key value in clear', async () => {
    const ws = await ctx.createWorkspace();
    const res = await http<{ data: { value: string } }>(api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers: { 'idempotency-key': 'secret-body' } });
    const record = await IdempotencyKey.findOne({ where: { accountId: ws.accountId, key: 'secret-body' } });
    expect(record!.state).toBe('completed');
    expect(record!.responseBody).not.toContain(res.body.data.value);
  });

  it('answers 409 IDEMPOTENCY_KEY_REUSED for the same key with a different body, executing nothing', async () => {
    const ws = await ctx.createWorkspace();
    const headers = { 'idempotency-key': 'create-2' };
    await http(api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers });
    const reused = await http(api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body: { ...body, name: 'different' }, headers });
    expectError(reused, 409, 'IDEMPOTENCY_KEY_REUSED');
    expect(await ApiKey.count({ where: { accountId: ws.accountId } })).toBe(5);
  });

  it('scopes keys to the workspace: another workspace may use the same key', async () => {
    const a = await ctx.createWorkspace();
    const b = await ctx.createWorkspace();
    const headers = { 'idempotency-key': 'shared-name' };
    expect((await http(api.baseUrl, 'POST', KEYS, { key: a.secretKey, body, headers })).status).toBe(201);
    const other = await http(api.baseUrl, 'POST', KEYS, { key: b.secretKey, body, headers });
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
  });

  it('never executes two concurrent requests with one key, across two API instances', async () => {
    const ws = await ctx.createWorkspace();
    const second = await ctx.startApi();
    const headers = { 'idempotency-key': 'race-1' };
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => http((i % 2 ? second : api).baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers })),
    );
    const created = results.filter((r) => r.status === 201);
    const inUse = results.filter((r) => r.status === 409);
    expect(created.length + inUse.length).toBe(12);
    for (const r of inUse) expect((r.body.error as { code: string }).code).toBe('IDEMPOTENCY_KEY_IN_USE');
    // Every 201 is the same response: one execution, the rest replays.
    expect(new Set(created.map((r) => (r.body.data as { id: string }).id)).size).toBe(1);
    expect(await ApiKey.count({ where: { accountId: ws.accountId } })).toBe(5);
  });

  it('replays a stored 4xx outcome too, and lets a key past 24 hours run again', async () => {
    const ws = await ctx.createWorkspace();
    const headers = { 'idempotency-key': 'expiring' };
    const other = await ctx.createWorkspace();
    const foreign = (await ApiKey.findOne({ where: { accountId: other.accountId } }))!.id;
    const first = await http(api.baseUrl, 'DELETE', `${KEYS}/${foreign}`, { key: ws.secretKey, headers });
    expectError(first, 404, 'RESOURCE_NOT_FOUND');
    const replay = await http(api.baseUrl, 'DELETE', `${KEYS}/${foreign}`, { key: ws.secretKey, headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    await IdempotencyKey.update({ createdAt: new Date(Date.now() - 25 * 3600_000) }, { where: { accountId: ws.accountId, key: 'expiring' } });
    const fresh = await http(api.baseUrl, 'DELETE', `${KEYS}/${foreign}`, { key: ws.secretKey, headers });
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses an over-long key with 400 VALIDATION_ERROR', async () => {
    const ws = await ctx.createWorkspace();
    const res = await http(api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers: { 'idempotency-key': 'k'.repeat(256) } });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(await ApiKey.count({ where: { accountId: ws.accountId } })).toBe(4);
  });
});
