import { request } from 'node:http';
import { QueryTypes } from 'sequelize';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { insertLicense, type LicenseOverrides } from '../fixtures/licenses';
import { insertProduct } from '../fixtures/products';
import { http, useTestApi, type HttpResult } from '../helpers/context';
import { expectError } from '../helpers/expect';

const t = useTestApi();
// Its own API with a per-IP budget of 2, called from a loopback address no other test uses (see trust-proxy.test.ts).
const perIp = useTestApi({ PUBLIC_RATE_LIMIT_PER_MINUTE: '2' });
const SOURCE = `127.${Math.floor(Math.random() * 200) + 20}.${Math.floor(Math.random() * 250) + 1}.${(process.pid % 250) + 2}`;

const LICENSES = '/api/v1/storefront/licenses';
type Data<T = Record<string, unknown>> = { data: T; error: { code: string; message: string } | null };

let ws: CreatedWorkspace;
let productId: string;

beforeAll(async () => {
  ws = await t.ctx.createWorkspace();
  productId = await insertProduct(t.ctx.sequelize, ws);
});

/** A licence of the shared workspace's product; its key. */
async function licence(overrides: LicenseOverrides = {}): Promise<string> {
  return (await insertLicense(ws, productId, overrides)).key;
}

const validate = (query: string) => http<Data>(t.api.baseUrl, 'GET', `${LICENSES}/validate?${query}`);
const activate = (key: string, body: unknown) => http<Data>(t.api.baseUrl, 'POST', `${LICENSES}/${encodeURIComponent(key)}/activate`, { body });
const deactivate = (key: string, body: unknown) => http<Data>(t.api.baseUrl, 'POST', `${LICENSES}/${encodeURIComponent(key)}/deactivate`, { body });
const revoke = (key: string, apiKey = ws.secretKey) => http(t.api.baseUrl, 'DELETE', `${LICENSES}/${encodeURIComponent(key)}`, { key: apiKey });
const retrieve = (key: string, apiKey = ws.secretKey) => http<Data>(t.api.baseUrl, 'GET', `${LICENSES}/${encodeURIComponent(key)}`, { key: apiKey });

/** The licence row and its activation rows, to prove a refusal wrote nothing. */
async function snapshot(key: string) {
  return t.ctx.sequelize.query(
    `SELECT to_jsonb(l) AS licence,
            (SELECT coalesce(jsonb_agg(to_jsonb(a) ORDER BY a.instance_id), '[]') FROM license_activations a WHERE a.license_id = l.id) AS activations
       FROM licenses l WHERE l.key = :key`,
    { type: QueryTypes.SELECT, replacements: { key } },
  );
}

async function activationCount(key: string): Promise<number> {
  const [row] = await t.ctx.sequelize.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM license_activations a JOIN licenses l ON l.id = a.license_id WHERE l.key = :key`,
    { type: QueryTypes.SELECT, replacements: { key } },
  );
  return row!.n;
}

const PAST = new Date(Date.now() - 60_000);
const FUTURE = new Date(Date.now() + 86_400_000);

describe('merchant: GET /v1/storefront/licenses and /:key', () => {
  it('lists every licence of the workspace and environment, newest first, as a plain array', async () => {
    const own = await t.ctx.createWorkspace();
    const product = await insertProduct(t.ctx.sequelize, own);
    const first = await insertLicense(own, product);
    const second = await insertLicense(own, product, { maxActivations: 2 });
    await insertLicense({ accountId: own.accountId, environment: 'live' }, await insertProduct(t.ctx.sequelize, { accountId: own.accountId, environment: 'live' }));
    await insertLicense(ws, productId);
    const res = await http<Data<Array<{ key: string }>> & { meta: Record<string, unknown> }>(t.api.baseUrl, 'GET', LICENSES, { key: own.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.data.map((l) => l.key)).toEqual([second.key, first.key]);
    expect(res.body.meta.page).toBeUndefined();
  });

  it('retrieves a licence by key with document 1’s fields, its activation count and the status it has now', async () => {
    const key = await licence({ maxActivations: 3, expiresAt: FUTURE });
    await activate(key, { instanceId: 'laptop' });
    const res = await retrieve(key);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^lic_[0-9A-Z]{26}$/),
      accountId: ws.accountId,
      key,
      productId,
      customerId: null,
      checkoutSessionId: null,
      activations: 1,
      maxActivations: 3,
      status: 'active',
      expiresAt: FUTURE.toISOString(),
      revokedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await retrieve(await licence({ expiresAt: PAST }))).body.data.status).toBe('expired');
  });

  it('answers 404 RESOURCE_NOT_FOUND for an unknown key and for the workspace’s own live licence under a test key', async () => {
    expectError(await retrieve('TEST-2222-2222-2222-2222'), 404, 'RESOURCE_NOT_FOUND');
    const live = await insertLicense({ accountId: ws.accountId, environment: 'live' }, await insertProduct(t.ctx.sequelize, { accountId: ws.accountId, environment: 'live' }));
    expectError(await retrieve(live.key), 404, 'RESOURCE_NOT_FOUND');
    expect((await retrieve(live.key, ws.liveSecretKey)).status).toBe(200);
  });

  it('needs a secret key', async () => {
    const key = await licence();
    expectError(await http(t.api.baseUrl, 'GET', LICENSES), 401, 'AUTHENTICATION_REQUIRED');
    expectError(await retrieve(key, ws.publishableKey), 403, 'FORBIDDEN');
    expectError(await revoke(key, ws.publishableKey), 403, 'FORBIDDEN');
    expect((await retrieve(key)).body.data.status).toBe('active');
  });
});

describe('merchant: DELETE /v1/storefront/licenses/:key (revoke)', () => {
  it('revokes for good with 204; revoking again is 204 and keeps the first revokedAt', async () => {
    const key = await licence();
    const res = await revoke(key);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const revoked = (await retrieve(key)).body.data;
    expect(revoked).toMatchObject({ status: 'revoked', revokedAt: expect.any(String) });
    expect((await revoke(key)).status).toBe(204);
    expect((await retrieve(key)).body.data.revokedAt).toBe(revoked.revokedAt);
  });

  it('answers 404 RESOURCE_NOT_FOUND for an unknown key, and for another workspace’s key, leaving that licence as it was', async () => {
    expectError(await revoke('TEST-ZZZZ-ZZZZ-ZZZZ-ZZZZ'), 404, 'RESOURCE_NOT_FOUND');
    const key = await licence();
    const before = await snapshot(key);
    const other = await t.ctx.createWorkspace();
    expectError(await revoke(key, other.secretKey), 404, 'RESOURCE_NOT_FOUND');
    expectError(await retrieve(key, other.secretKey), 404, 'RESOURCE_NOT_FOUND');
    expect(await snapshot(key)).toEqual(before);
  });
});

describe('public: GET /v1/storefront/licenses/validate', () => {
  const invalid = (key: string) => ({ valid: false, key, productId: null, activations: null, maxActivations: null, expiresAt: null });

  it('answers valid with the licence’s figures, without any API key, for the product given or none', async () => {
    const key = await licence({ maxActivations: 2, expiresAt: FUTURE });
    await activate(key, { instanceId: 'a' });
    const expected = { valid: true, key, productId, activations: 1, maxActivations: 2, expiresAt: FUTURE.toISOString() };
    const res = await validate(`key=${encodeURIComponent(key)}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(expected);
    expect((await validate(`key=${encodeURIComponent(key)}&productId=${productId}`)).body.data).toEqual(expected);
  });

  it('never errors on a bad key: unknown, other letter case, malformed, revoked, another product → valid false with null fields', async () => {
    const key = await licence();
    for (const bad of ['TEST-2222-2222-2222-2222', key.toLowerCase(), 'not a key at all', 'x'.repeat(5000)]) {
      const res = await validate(`key=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(invalid(bad));
    }
    expect((await validate(`key=${encodeURIComponent(key)}&productId=prod_01JD4X7V1QZ8N6Y3K2M5P9R0TS`)).body.data).toEqual(invalid(key));
    await revoke(key);
    expect((await validate(`key=${encodeURIComponent(key)}`)).body.data).toEqual(invalid(key));
  });

  it('answers an expired licence valid false with its figures, so software can say why', async () => {
    const key = await licence({ expiresAt: PAST });
    expect((await validate(`key=${encodeURIComponent(key)}`)).body.data).toEqual({
      valid: false,
      key,
      productId,
      activations: 0,
      maxActivations: 1,
      expiresAt: PAST.toISOString(),
    });
  });

  it('reads a live licence as well: the key’s row says its environment', async () => {
    const live = { accountId: ws.accountId, environment: 'live' as const };
    const key = (await insertLicense(live, await insertProduct(t.ctx.sequelize, live))).key;
    expect((await validate(`key=${encodeURIComponent(key)}`)).body.data).toMatchObject({ valid: true, key });
  });

  it('refuses a request without a key (400 VALIDATION_ERROR)', async () => {
    expectError(await validate(''), 400, 'VALIDATION_ERROR');
    expectError(await validate('key='), 400, 'VALIDATION_ERROR');
  });
});

describe('public: POST /v1/storefront/licenses/:key/activate', () => {
  it('burns one slot per instance; the same instance again is alreadyActive and burns none', async () => {
    const key = await licence({ maxActivations: 2 });
    const first = await activate(key, { instanceId: 'laptop-1' });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ activated: true, key, activations: 1, maxActivations: 2, instanceId: 'laptop-1', alreadyActive: false });
    expect((await activate(key, { instanceId: 'laptop-1' })).body.data).toEqual({ activated: true, key, activations: 1, maxActivations: 2, instanceId: 'laptop-1', alreadyActive: true });
    expect((await activate(key, { instanceId: 'desktop' })).body.data).toMatchObject({ activations: 2, alreadyActive: false });
    // A full licence still answers an instance that holds a slot.
    expect((await activate(key, { instanceId: 'laptop-1' })).body.data).toMatchObject({ activations: 2, alreadyActive: true });
    expect(await activationCount(key)).toBe(2);
  });

  it('refuses a full licence with 422 ACTIVATION_LIMIT_REACHED and writes nothing', async () => {
    const key = await licence();
    await activate(key, { instanceId: 'one' });
    const before = await snapshot(key);
    expectError(await activate(key, { instanceId: 'two' }), 422, 'ACTIVATION_LIMIT_REACHED');
    expect(await snapshot(key)).toEqual(before);
  });

  it('refuses an expired licence with 422 SUBSCRIPTION_INACTIVE, for a new instance and one holding a slot alike, writing nothing', async () => {
    const key = await licence({ expiresAt: FUTURE, maxActivations: 2 });
    await activate(key, { instanceId: 'box' });
    await t.ctx.sequelize.query(`UPDATE licenses SET expires_at = now() - interval '1 minute' WHERE key = :key`, { replacements: { key } });
    const before = await snapshot(key);
    expectError(await activate(key, { instanceId: 'new' }), 422, 'SUBSCRIPTION_INACTIVE');
    expectError(await activate(key, { instanceId: 'box' }), 422, 'SUBSCRIPTION_INACTIVE');
    expect(await snapshot(key)).toEqual(before);
  });

  it('answers 404 RESOURCE_NOT_FOUND for an unknown key and a revoked one alike, writing nothing', async () => {
    const key = await licence({ maxActivations: 3 });
    await activate(key, { instanceId: 'kept' });
    await revoke(key);
    const before = await snapshot(key);
    const revoked = await activate(key, { instanceId: 'new' });
    const unknown = await activate('TEST-2222-3333-4444-5555', { instanceId: 'new' });
    expectError(revoked, 404, 'RESOURCE_NOT_FOUND');
    expectError(unknown, 404, 'RESOURCE_NOT_FOUND');
    expect(revoked.body.error?.message).toBe(unknown.body.error?.message);
    expect(await snapshot(key)).toEqual(before);
  });

  it.each([
    ['no body', undefined],
    ['no instanceId', {}],
    ['an empty instanceId', { instanceId: '' }],
    ['a blank instanceId', { instanceId: '   ' }],
    ['an instanceId over 200 characters', { instanceId: 'x'.repeat(201) }],
    ['a control character', { instanceId: 'host\n1' }],
    ['a number', { instanceId: 42 }],
    ['an unknown field', { instanceId: 'ok', machine: 'x' }],
  ])('refuses %s with 400 VALIDATION_ERROR and writes nothing', async (_what, body) => {
    const key = await licence();
    const before = await snapshot(key);
    expectError(await activate(key, body), 400, 'VALIDATION_ERROR');
    expect(await snapshot(key)).toEqual(before);
  });

  it('accepts an instanceId of 200 characters, spaces and letters of any script', async () => {
    const key = await licence({ maxActivations: 2 });
    expect((await activate(key, { instanceId: 'y'.repeat(200) })).status).toBe(200);
    expect((await activate(key, { instanceId: 'Büro PC №2' })).body.data).toMatchObject({ instanceId: 'Büro PC №2', activations: 2 });
  });

  it('leaves exactly maxActivations rows under 20 parallel activations of distinct instances', async () => {
    const key = await licence({ maxActivations: 3 });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => activate(key, { instanceId: `instance-${i}` })));
    const outcomes = results.map((r) => `${r.status} ${r.body.error?.code ?? ''}`.trim());
    expect(outcomes.filter((o) => o === '200')).toHaveLength(3);
    expect(outcomes.filter((o) => o === '422 ACTIVATION_LIMIT_REACHED')).toHaveLength(17);
    expect(await activationCount(key)).toBe(3);
    expect(results.filter((r) => r.status === 200).map((r) => r.body.data.activations).sort()).toEqual([1, 2, 3]);
  });
});

describe('public: POST /v1/storefront/licenses/:key/deactivate', () => {
  it('frees the instance’s slot; again, or for an instance never active, is alreadyDeactivated', async () => {
    const key = await licence();
    await activate(key, { instanceId: 'old-laptop' });
    const res = await deactivate(key, { instanceId: 'old-laptop' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ deactivated: true, key, activations: 0, instanceId: 'old-laptop', alreadyDeactivated: false });
    expect((await deactivate(key, { instanceId: 'old-laptop' })).body.data).toEqual({ deactivated: true, key, activations: 0, instanceId: 'old-laptop', alreadyDeactivated: true });
    expect((await deactivate(key, { instanceId: 'never' })).body.data).toMatchObject({ activations: 0, alreadyDeactivated: true });
    // The freed slot is usable by another instance.
    expect((await activate(key, { instanceId: 'new-laptop' })).body.data).toMatchObject({ activations: 1, alreadyActive: false });
  });

  it('still frees a slot of an expired licence', async () => {
    const key = await licence({ expiresAt: FUTURE });
    await activate(key, { instanceId: 'box' });
    await t.ctx.sequelize.query(`UPDATE licenses SET expires_at = now() - interval '1 minute' WHERE key = :key`, { replacements: { key } });
    expect((await deactivate(key, { instanceId: 'box' })).body.data).toMatchObject({ activations: 0, alreadyDeactivated: false });
  });

  it('answers 404 for an unknown or revoked key and 400 for a bad body, writing nothing', async () => {
    const key = await licence();
    await activate(key, { instanceId: 'box' });
    await revoke(key);
    const before = await snapshot(key);
    expectError(await deactivate(key, { instanceId: 'box' }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await deactivate('TEST-2222-3333-4444-5555', { instanceId: 'box' }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await deactivate(key, {}), 400, 'VALIDATION_ERROR');
    expect(await snapshot(key)).toEqual(before);
  });
});

describe('public licence routes: rate limit per key', () => {
  function expectLimited(res: HttpResult) {
    expectError(res, 429, 'RATE_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  }

  it('allows 60 requests a minute per key across validate, activate and deactivate; another key is unaffected', async () => {
    const key = await licence();
    const other = await licence();
    for (let i = 0; i < 58; i += 1) {
      const res = await validate(`key=${encodeURIComponent(key)}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    }
    expect((await activate(key, { instanceId: 'a' })).status).toBe(200);
    expect((await deactivate(key, { instanceId: 'a' })).status).toBe(200);
    expectLimited(await validate(`key=${encodeURIComponent(key)}`));
    // Invalid bodies count too (the limit runs before validation); another key has a budget of its own.
    expectLimited(await activate(key, {}));
    expect((await validate(`key=${encodeURIComponent(other)}`)).status).toBe(200);
  });
});

describe('public licence routes: rate limit per IP', () => {
  function validateFrom(source: string, key: string): Promise<number> {
    const url = new URL(perIp.api.baseUrl);
    return new Promise((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, localAddress: source, path: `${LICENSES}/validate?key=${encodeURIComponent(key)}` }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('counts against the public per-IP limit, whichever keys an address tries', async () => {
    expect(await validateFrom(SOURCE, 'GUESS-2222-2222-2222-2222')).toBe(200);
    expect(await validateFrom(SOURCE, 'GUESS-3333-3333-3333-3333')).toBe(200);
    expect(await validateFrom(SOURCE, 'GUESS-4444-4444-4444-4444')).toBe(429);
  });
});
