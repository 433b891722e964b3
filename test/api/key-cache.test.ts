import { Account, ApiKey } from '../../db/models';
import { hashKey } from '../../lib/api-key-secrets';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { waitFor } from '../helpers/wait';
import type { CreatedWorkspace } from '../../domain/workspaces/service';

/**
 * The in-process key lookup cache (docs/decisions/auth.md, "Key lookup cache") on a real PostgreSQL, its
 * triggers and a real LISTEN connection. `revokeSilently` revokes with triggers off, as if the notification
 * were lost: a key still accepted afterwards proves the answer came from the cache.
 */
let ctx: TestContext;
let api: TestApi;
let ws: CreatedWorkspace;

const KEYS = '/api/v1/account/api-keys';

beforeAll(async () => {
  ctx = await createTestContext();
  api = await ctx.startApi();
  ws = await ctx.createWorkspace();
  await waitUntilLive(api);
});
afterAll(() => ctx.close());

function waitUntilLive(target: TestApi) {
  return waitFor(async () => target.keyCache.live, { timeoutMs: 10_000, intervalMs: 5 });
}

async function newKey(): Promise<{ id: string; value: string }> {
  const res = await http<{ data: { id: string; value: string } }>(api.baseUrl, 'POST', KEYS, {
    key: ws.secretKey,
    body: { name: 'cache probe', environment: 'test', access: 'secret' },
  });
  expect(res.status).toBe(201);
  return res.body.data;
}

async function revokeSilently(id: string): Promise<void> {
  await ctx.sequelize.transaction(async (transaction) => {
    await ctx.sequelize.query('SET LOCAL session_replication_role = replica', { transaction });
    await ApiKey.update({ revokedAt: new Date() }, { where: { id }, transaction });
  });
}

const status = async (target: TestApi, key: string) => (await http(target.baseUrl, 'GET', KEYS, { key })).status;

describe('key lookup cache', () => {
  it('serves a warmed key from memory: a revocation nobody is told about still passes', async () => {
    const key = await newKey();
    expect(await status(api, key.value)).toBe(200);
    await revokeSilently(key.id);
    expect(await status(api, key.value)).toBe(200);
  });

  it('makes a revocation through this process effective on its very next request', async () => {
    const key = await newKey();
    expect(await status(api, key.value)).toBe(200);
    expect(api.keyCache.get(hashKey(key.value))?.id).toBe(key.id);
    expect((await http(api.baseUrl, 'DELETE', `${KEYS}/${key.id}`, { key: ws.secretKey })).status).toBe(200);
    expectError(await http(api.baseUrl, 'GET', KEYS, { key: key.value }), 401, 'INVALID_API_KEY');
  });

  it('accepts a key created after an unknown-key lookup of it at once (no negative caching)', async () => {
    const unknown = `sk_test_${'B'.repeat(40)}`;
    expectError(await http(api.baseUrl, 'GET', KEYS, { key: unknown }), 401, 'INVALID_API_KEY');
    expect(api.keyCache.get(hashKey(unknown))).toBeUndefined();
    const key = await newKey();
    expect(await status(api, key.value)).toBe(200);
  });

  it('drops the workspace summary on a module switch (same process) and on a plan change (trigger)', async () => {
    const own = await ctx.createWorkspace();
    const hash = hashKey(own.secretKey);
    expect(await status(api, own.secretKey)).toBe(200);
    expect(api.keyCache.get(hash)?.account.fulfillmentEnabled).toBe(false);
    const switched = await http(api.baseUrl, 'POST', '/api/v1/modules', { key: own.secretKey, body: { module: 'fulfillment', enabled: true } });
    expect(switched.status).toBe(200);
    expect(api.keyCache.get(hash)).toBeUndefined();

    // The switch's row change also reaches this process as a notification, which may drop the entry once more
    // after the next request cached it: what must hold is that a request caches the new summary.
    const recached = await waitFor(async () => (await status(api, own.secretKey)) === 200 && api.keyCache.get(hash)?.account, { timeoutMs: 5_000, intervalMs: 50 });
    expect(recached).toMatchObject({ fulfillmentEnabled: true, plan: 'free' });
    await Account.update({ plan: 'pro' }, { where: { id: own.accountId } });
    await waitFor(async () => api.keyCache.get(hash) === undefined, { timeoutMs: 5_000, intervalMs: 2 });
    expect(await status(api, own.secretKey)).toBe(200);
    expect(api.keyCache.get(hash)?.account.plan).toBe('pro');
  });

  it('keeps an entry at most AUTH_CACHE_TTL', async () => {
    // Load-proof: the entry is set before the first answer is sent, so once TTL has passed since that answer
    // arrived, the very next request must miss the cache, however slow the machine is.
    const short = await ctx.startApi({ AUTH_CACHE_TTL: '3s' });
    await waitUntilLive(short);
    const key = await newKey();
    expect(await status(short, key.value)).toBe(200);
    const cachedBy = Date.now();
    await revokeSilently(key.id);
    expect(await status(short, key.value)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, cachedBy + 3_000 + 5 - Date.now())));
    expectError(await http(short.baseUrl, 'GET', KEYS, { key: key.value }), 401, 'INVALID_API_KEY');
  });

  it('does not cache at all with AUTH_CACHE_TTL=0s', async () => {
    const off = await ctx.startApi({ AUTH_CACHE_TTL: '0s' });
    expect(off.keyListener).toBeNull();
    const key = await newKey();
    expect(await status(off, key.value)).toBe(200);
    await revokeSilently(key.id);
    expect(await status(off, key.value)).toBe(401);
  });

  it('bypasses the cache while its LISTEN connection is down, and caches again once it is back', async () => {
    const own = await ctx.startApi();
    await waitUntilLive(own);
    const key = await newKey();
    expect(await status(own, key.value)).toBe(200);
    expect(own.keyCache.get(hashKey(key.value))).toBeDefined();

    const killed = own.keyListener!.backendPid!;
    await ctx.sequelize.query('SELECT pg_terminate_backend($1)', { bind: [killed] });
    await waitFor(async () => !own.keyCache.live, { timeoutMs: 5_000, intervalMs: 1 });
    // Down: nothing is served from memory, whatever was cached.
    expect(own.keyCache.get(hashKey(key.value))).toBeUndefined();
    // No notification can reach this process now (and the silent revocation sends none anyway).
    await revokeSilently(key.id);
    expectError(await http(own.baseUrl, 'GET', KEYS, { key: key.value }), 401, 'INVALID_API_KEY');

    await waitUntilLive(own);
    expect(own.keyListener!.backendPid).not.toBe(killed);
    const after = await newKey();
    expect(await status(own, after.value)).toBe(200);
    await revokeSilently(after.id);
    expect(await status(own, after.value)).toBe(200);
  });
});
