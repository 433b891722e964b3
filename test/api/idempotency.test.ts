import { QueryTypes } from 'sequelize';
import { ApiKey, IdempotencyKey } from '../../db/models';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { waitFor } from '../helpers/wait';

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

  it('never re-runs a `processing` record an earlier version left (its effect is unknown) until its window has passed', async () => {
    const ws = await t.ctx.createWorkspace();
    const headers = { 'idempotency-key': 'left-processing' };
    expect((await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers })).status).toBe(201);
    const where = { accountId: ws.accountId, key: 'left-processing' };
    await IdempotencyKey.update({ state: 'processing', responseBody: null, responseStatus: null, createdAt: new Date(Date.now() - 6 * 60_000) }, { where });
    expectError(await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers }), 409, 'IDEMPOTENCY_KEY_IN_USE');
    expect(await ApiKey.count({ where: { accountId: ws.accountId } })).toBe(5);
    await IdempotencyKey.update({ createdAt: new Date(Date.now() - 25 * 60 * 60_000) }, { where });
    const retried = await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await ApiKey.count({ where: { accountId: ws.accountId } })).toBe(6);
  });

  it('commits the effect with its answer: a request whose answer cannot be stored leaves no effect and answers 503', async () => {
    const ws = await t.ctx.createWorkspace();
    const headers = { 'idempotency-key': `unstorable-${ws.accountId}` };
    const fn = `refuse_${ws.accountId.toLowerCase()}`;
    // The store of this key's answer fails inside the request's transaction, after the key was created in it.
    await t.ctx.sequelize.query(`
      CREATE FUNCTION ${fn}() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'simulated failure'; END $$ LANGUAGE plpgsql;
      CREATE TRIGGER ${fn} BEFORE INSERT ON idempotency_keys
        FOR EACH ROW WHEN (NEW.key = '${headers['idempotency-key']}') EXECUTE FUNCTION ${fn}();`);
    try {
      const failed = await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers });
      expectError(failed, 503, 'SERVICE_UNAVAILABLE');
      expect(failed.headers.get('retry-after')).toBe('1');
      expect(await ApiKey.count({ where: { accountId: ws.accountId } })).toBe(4);
    } finally {
      await t.ctx.sequelize.query(`DROP TRIGGER ${fn} ON idempotency_keys; DROP FUNCTION ${fn}();`);
    }
    const retried = await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body, headers });
    expect(retried.status).toBe(201);
    expect(await ApiKey.count({ where: { accountId: ws.accountId } })).toBe(5);
  });

  it('answers 503 with Retry-After, not 500, when the database connection ends under a request, and the retry runs it once', async () => {
    const ws = await t.ctx.createWorkspace();
    const headers = { 'idempotency-key': `terminated-${ws.accountId}` };
    const slow = { ...body, name: `slow-${ws.accountId}` };
    const fn = `slow_${ws.accountId.toLowerCase()}`;
    await t.ctx.sequelize.query(`
      CREATE FUNCTION ${fn}() RETURNS trigger AS $$
      BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$ LANGUAGE plpgsql;
      CREATE TRIGGER ${fn} BEFORE INSERT ON api_keys
        FOR EACH ROW WHEN (NEW.name = '${slow.name}') EXECUTE FUNCTION ${fn}();`);
    try {
      const pending = http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body: slow, headers });
      // The backend running the insert (asleep in the trigger) is terminated, as a failover or a restart would.
      await waitFor(async () => {
        const [row] = await t.ctx.sequelize.query<{ terminated: boolean }>(
          `SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE query LIKE 'INSERT INTO "api_keys"%' AND wait_event = 'PgSleep'`,
          { type: QueryTypes.SELECT },
        );
        return row?.terminated;
      });
      const failed = await pending;
      expectError(failed, 503, 'SERVICE_UNAVAILABLE');
      expect(failed.headers.get('retry-after')).toBe('1');
    } finally {
      await t.ctx.sequelize.query(`DROP TRIGGER ${fn} ON api_keys; DROP FUNCTION ${fn}();`);
    }
    expect(await ApiKey.count({ where: { accountId: ws.accountId } })).toBe(4);
    const retried = await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body: slow, headers });
    expect(retried.status).toBe(201);
    expect(await ApiKey.count({ where: { accountId: ws.accountId } })).toBe(5);
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

