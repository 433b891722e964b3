import { AuditLog, ApiKey } from '../../db/models';
import { insertApiKeys } from '../fixtures/api-keys';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { encodeCursor } from '../../db/cursor';

const t = useTestApi();

const KEYS = '/api/v1/account/api-keys';
type KeyRow = { id: string; name: string; prefix: string; last4: string; environment: string; access: string; value?: string };

describe('POST /v1/account/api-keys', () => {
  it('returns the value once, stores only its hash and writes an api_key.created audit entry', async () => {
    const ws = await t.ctx.createWorkspace();
    const res = await http<{ data: KeyRow & { createdAt: string } }>(t.api.baseUrl, 'POST', KEYS, {
      key: ws.secretKey,
      body: { name: 'Deploy bot', environment: 'test', access: 'publishable' },
    });
    expect(res.status).toBe(201);
    const key = res.body.data;
    expect(key).toMatchObject({ name: 'Deploy bot', environment: 'test', access: 'publishable', prefix: 'pk_test_' });
    expect(key.id).toMatch(/^key_[0-9A-Z]{26}$/);
    expect(key.value).toMatch(/^pk_test_[0-9A-Za-z]{40}$/);
    expect(key.last4).toBe(key.value!.slice(-4));

    const list = await http<{ data: KeyRow[] }>(t.api.baseUrl, 'GET', KEYS, { key: ws.secretKey });
    const listed = list.body.data.find((k) => k.id === key.id)!;
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('value');
    expect(JSON.stringify((await ApiKey.findByPk(key.id))!.toJSON())).not.toContain(key.value);

    const entries = await AuditLog.findAll({ where: { accountId: ws.accountId, targetId: key.id } });
    expect(entries.map((e) => e.action)).toEqual(['api_key.created']);
  });

  it.each([
    [{ environment: 'test', access: 'secret' }, 'name'],
    [{ name: '', environment: 'test', access: 'secret' }, 'name'],
    [{ name: 'x'.repeat(101), environment: 'test', access: 'secret' }, 'name'],
    [{ name: 'x', environment: 'staging', access: 'secret' }, 'environment'],
    [{ name: 'x', environment: 'test', access: 'admin' }, 'access'],
  ])('refuses %j with 400 VALIDATION_ERROR naming %s, writing nothing', async (body, field) => {
    const ws = await t.ctx.createWorkspace();
    const res = await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(res.body.error)).toContain(field);
    expect(await ApiKey.count({ where: { accountId: ws.accountId } })).toBe(4);
    expect(await AuditLog.count({ where: { accountId: ws.accountId } })).toBe(4);
  });

  it('does not let a test key mint a live key', async () => {
    const ws = await t.ctx.createWorkspace();
    const res = await http(t.api.baseUrl, 'POST', KEYS, { key: ws.secretKey, body: { name: 'x', environment: 'live', access: 'secret' } });
    expectError(res, 403, 'FORBIDDEN');
    expect(await ApiKey.count({ where: { accountId: ws.accountId } })).toBe(4);
  });
});

describe('DELETE /v1/account/api-keys/:id', () => {
  it('revokes once, audits once, and answers 404 for another workspace’s key', async () => {
    const ws = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    const created = await http<{ data: KeyRow }>(t.api.baseUrl, 'POST', KEYS, {
      key: ws.secretKey,
      body: { name: 'temp', environment: 'test', access: 'secret' },
    });
    const id = created.body.data.id;
    expectError(await http(t.api.baseUrl, 'DELETE', `${KEYS}/${id}`, { key: other.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expect((await ApiKey.findByPk(id))!.revokedAt).toBeNull();

    const first = await http<{ data: { revokedAt: string } }>(t.api.baseUrl, 'DELETE', `${KEYS}/${id}`, { key: ws.secretKey });
    expect(first.status).toBe(200);
    expect(first.body.data.revokedAt).toEqual(expect.any(String));
    const again = await http<{ data: { revokedAt: string } }>(t.api.baseUrl, 'DELETE', `${KEYS}/${id}`, { key: ws.secretKey });
    expect(again.body.data.revokedAt).toBe(first.body.data.revokedAt);
    const actions = (await AuditLog.findAll({ where: { targetId: id }, order: [['id', 'ASC']] })).map((e) => e.action);
    expect(actions).toEqual(['api_key.created', 'api_key.revoked']);
    expectError(await http(t.api.baseUrl, 'GET', KEYS, { key: created.body.data.value }), 401, 'INVALID_API_KEY');
  });
});

describe('pagination', () => {
  it('walks 250 rows newest first with no gap or repeat while rows are inserted between pages', async () => {
    const ws = await t.ctx.createWorkspace();
    await insertApiKeys(ws, 248); // plus the workspace's two test keys = 250
    const expected = (await ApiKey.findAll({ where: { accountId: ws.accountId, environment: 'test' }, order: [['id', 'DESC']] })).map((k) => k.id);
    expect(expected).toHaveLength(250);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=100&cursor=${cursor}` : '?limit=100';
      const res = await http<{ data: KeyRow[]; meta: { page: { nextCursor: string | null } } }>(t.api.baseUrl, 'GET', `${KEYS}${query}`, { key: ws.secretKey });
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((k) => k.id));
      cursor = res.body.meta.page.nextCursor;
      pages += 1;
      await insertApiKeys(ws, 7); // concurrent writers must not disturb the walk
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(expected);
  });

  it('defaults to 50 and clamps limit to [1, 100]', async () => {
    const ws = await t.ctx.createWorkspace();
    await insertApiKeys(ws, 120);
    const page = async (q: string) =>
      (await http<{ data: unknown[]; meta: { page: { nextCursor: string | null } } }>(t.api.baseUrl, 'GET', `${KEYS}${q}`, { key: ws.secretKey })).body;
    expect((await page('')).data).toHaveLength(50);
    expect((await page('?limit=0')).data).toHaveLength(1);
    expect((await page('?limit=-5')).data).toHaveLength(1);
    expect((await page('?limit=1000')).data).toHaveLength(100);
    const last = await page('?limit=100&cursor=' + (await page('?limit=100')).meta.page.nextCursor);
    expect(last.data).toHaveLength(22);
    expect(last.meta.page.nextCursor).toBeNull();
  });

  it('refuses a tampered cursor or a non-integer limit with 400 VALIDATION_ERROR', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await http(t.api.baseUrl, 'GET', `${KEYS}?cursor=not-a-cursor`, { key: ws.secretKey }), 400, 'VALIDATION_ERROR');
    expectError(await http(t.api.baseUrl, 'GET', `${KEYS}?cursor=${encodeCursor('acc_01JD4X7V1QZ8N6Y3K2M5P9R0TS')}`, { key: ws.secretKey }), 400, 'VALIDATION_ERROR');
    expectError(await http(t.api.baseUrl, 'GET', `${KEYS}?limit=ten`, { key: ws.secretKey }), 400, 'VALIDATION_ERROR');
  });
});
