import { ApiKey, IdempotencyKey } from '../../db/models';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';

const t = useTestApi();

const KEYS = '/api/v1/account/api-keys';
const body = { name: 'idempotent', environment: 'test', access: 'secret' };

describe('Idempotency-Key', () => {
  it('replays the stored status and body for the same key and request', async () => {
    const ws = await t.ctx.createWorkspace();
    const headers = { 'idempotency-key': 'create-1' };
    const first = await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers });
    const second = await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body: { access: 'secret', environment: 'test', name: 'idempotent' }, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await ApiKey.count({ where: { accountId: ws.accountId } })).toBe(5);
  });

  it('stores the replayable response encrypted, never the one-time key value in clear', async () => {
    const ws = await t.ctx.createWorkspace();
    const res = await http<{ data: { value: string } }>(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers: { 'idempotency-key': 'secret-body' } });
    const record = await IdempotencyKey.findOne({ where: { accountId: ws.accountId, key: 'secret-body' } });
    expect(record!.state).toBe('completed');
    expect(record!.responseBody).not.toContain(res.body.data.value);
  });

  it('answers 409 IDEMPOTENCY_KEY_REUSED for the same key with a different body, executing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const headers = { 'idempotency-key': 'create-2' };
    await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers });
    const reused = await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body: { ...body, name: 'different' }, headers });
    expectError(reused, 409, 'IDEMPOTENCY_KEY_REUSED');
    expect(await ApiKey.count({ where: { accountId: ws.accountId } })).toBe(5);
  });

  it('scopes keys to the workspace: another workspace may use the same key', async () => {
    const a = await t.ctx.createWorkspace();
    const b = await t.ctx.createWorkspace();
    const headers = { 'idempotency-key': 'shared-name' };
    expect((await http(t.api.baseUrl, 'POST', KEYS, { key: a.secretKey, body, headers })).status).toBe(201);
    const other = await http(t.api.baseUrl, 'POST', KEYS, { key: b.secretKey, body, headers });
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
  });

  it('never executes two concurrent requests with one key, across two API instances', async () => {
    const ws = await t.ctx.createWorkspace();
    const second = await t.ctx.startApi();
    const headers = { 'idempotency-key': 'race-1' };
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => http((i % 2 ? second : t.api).baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers })),
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
    const ws = await t.ctx.createWorkspace();
    const headers = { 'idempotency-key': 'expiring' };
    const other = await t.ctx.createWorkspace();
    const foreign = (await ApiKey.findOne({ where: { accountId: other.accountId } }))!.id;
    const first = await http(t.api.baseUrl, 'DELETE', `${KEYS}/${foreign}`, { key: ws.secretKey, headers });
    expectError(first, 404, 'RESOURCE_NOT_FOUND');
    const replay = await http(t.api.baseUrl, 'DELETE', `${KEYS}/${foreign}`, { key: ws.secretKey, headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    await IdempotencyKey.update({ createdAt: new Date(Date.now() - 25 * 3600_000) }, { where: { accountId: ws.accountId, key: 'expiring' } });
    const fresh = await http(t.api.baseUrl, 'DELETE', `${KEYS}/${foreign}`, { key: ws.secretKey, headers });
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses an over-long key with 400 VALIDATION_ERROR', async () => {
    const ws = await t.ctx.createWorkspace();
    const res = await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers: { 'idempotency-key': 'k'.repeat(256) } });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(await ApiKey.count({ where: { accountId: ws.accountId } })).toBe(4);
  });

  it('lets the same request take over a claim abandoned for over 5 minutes, but not a recent one', async () => {
    const ws = await t.ctx.createWorkspace();
    const headers = { 'idempotency-key': 'abandoned' };
    expect((await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers })).status).toBe(201);
    const where = { accountId: ws.accountId, key: 'abandoned' };
    // As if the process had died mid-request: the claim stays `processing` with no response.
    await IdempotencyKey.update({ state: 'processing', responseBody: null, responseStatus: null, createdAt: new Date(Date.now() - 60_000) }, { where });
    expectError(await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers }), 409, 'IDEMPOTENCY_KEY_IN_USE');
    await IdempotencyKey.update({ createdAt: new Date(Date.now() - 6 * 60_000) }, { where });
    const retried = await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await ApiKey.count({ where: { accountId: ws.accountId } })).toBe(6);
  });

  it('releases the key after a 500 so a retry executes, and the 500 leaks no SQL', async () => {
    const ws = await t.ctx.createWorkspace();
    const headers = { 'idempotency-key': 'after-500' };
    const failing = { ...body, name: `explode-${ws.accountId}` };
    await t.ctx.sequelize.query(`
      CREATE FUNCTION explode_${ws.accountId.toLowerCase()}() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'simulated outage'; END $$ LANGUAGE plpgsql;
      CREATE TRIGGER explode_${ws.accountId.toLowerCase()} BEFORE INSERT ON api_keys
        FOR EACH ROW WHEN (NEW.name = '${failing.name}') EXECUTE FUNCTION explode_${ws.accountId.toLowerCase()}();`);
    try {
      const failed = await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body: failing, headers });
      expectError(failed, 500, 'INTERNAL_ERROR');
      expect(failed.text).not.toMatch(/simulated outage|INSERT|api_keys/);
      expect(await IdempotencyKey.count({ where: { accountId: ws.accountId, key: 'after-500' } })).toBe(0);
    } finally {
      await t.ctx.sequelize.query(`DROP TRIGGER explode_${ws.accountId.toLowerCase()} ON api_keys; DROP FUNCTION explode_${ws.accountId.toLowerCase()}();`);
    }
    const retried = await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body: failing, headers });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });
});

