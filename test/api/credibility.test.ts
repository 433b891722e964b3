import { insertCredibilityItems } from '../fixtures/credibility';
import { http, useTestApi } from '../helpers/context';
import { countRows, RESOURCES, storedRow, type CredibilityCase } from '../helpers/credibility';
import { expectError } from '../helpers/expect';

// Conventions the three credibility resources share (document 1, "Portfolio, testimonials, certifications").

const t = useTestApi();

type Envelope = { data: Record<string, unknown> };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function create(r: CredibilityCase, key: string, body: Record<string, unknown> = r.minimal) {
  const res = await http<Envelope>(t.api.baseUrl, 'POST', r.path, { key, body });
  expect(res.status).toBe(201);
  return res.body.data[r.single] as Record<string, unknown> & { id: string };
}

async function list(r: CredibilityCase, key: string) {
  const res = await http<Envelope>(t.api.baseUrl, 'GET', r.path, { key });
  expect(res.status).toBe(200);
  return res.body.data[r.list] as Array<Record<string, unknown> & { id: string }>;
}

describe.each(RESOURCES)('$name', (r) => {
  it('creates a published record with the documented defaults, answering under its single key', async () => {
    const ws = await t.ctx.createWorkspace();
    const res = await http<Envelope>(t.api.baseUrl, 'POST', r.path, { key: ws.secretKey, body: r.minimal });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.data)).toEqual([r.single]);
    const record = res.body.data[r.single] as Record<string, unknown>;
    expect(record).toEqual({
      id: expect.stringMatching(new RegExp(`^${r.prefix}_[0-9A-Z]{26}$`)),
      accountId: ws.accountId,
      ...r.defaults,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    const stored = (await storedRow(t.ctx.sequelize, r.table, record.id as string))!;
    expect(stored).toMatchObject({ account_id: ws.accountId, environment: 'test', published: true, sort_order: 0 });
  });

  it('retrieves the record it created, and lists it under the list key', async () => {
    const ws = await t.ctx.createWorkspace();
    const created = await create(r, ws.secretKey);
    const got = await http<Envelope>(t.api.baseUrl, 'GET', `${r.path}/${created.id}`, { key: ws.secretKey });
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual({ [r.single]: created });
    const listed = await http<Envelope>(t.api.baseUrl, 'GET', r.path, { key: ws.secretKey });
    expect(listed.body.data).toEqual({ [r.list]: [created] });
    expect(listed.body).not.toHaveProperty('meta.page');
  });

  it('lists every record, published or not, by sortOrder then createdAt then id, without pagination', async () => {
    const ws = await t.ctx.createWorkspace();
    const a = await create(r, ws.secretKey, { ...r.minimal, sortOrder: 2 });
    const b = await create(r, ws.secretKey, { ...r.minimal, sortOrder: 0, published: false });
    const c = await create(r, ws.secretKey, { ...r.minimal, sortOrder: 1 });
    const d = await create(r, ws.secretKey, { ...r.minimal, sortOrder: 0 });
    // f is created after e (a larger id) but given an earlier createdAt: createdAt must win over id.
    const e = await create(r, ws.secretKey, { ...r.minimal, sortOrder: 5 });
    const f = await create(r, ws.secretKey, { ...r.minimal, sortOrder: 5 });
    await t.ctx.sequelize.query(`UPDATE ${r.table} SET created_at = created_at - interval '1 hour' WHERE id = :id`, { replacements: { id: f.id } });
    // g and h share sortOrder and createdAt: the id breaks the tie.
    const g = await create(r, ws.secretKey, { ...r.minimal, sortOrder: 7 });
    const h = await create(r, ws.secretKey, { ...r.minimal, sortOrder: 7 });
    await t.ctx.sequelize.query(`UPDATE ${r.table} SET created_at = '2020-01-01T00:00:00Z' WHERE id IN (:ids)`, { replacements: { ids: [g.id, h.id] } });
    await create(r, ws.liveSecretKey); // other environment: never listed with the test key

    const ids = (await list(r, ws.secretKey)).map((x) => x.id);
    expect(ids).toEqual([b.id, d.id, c.id, a.id, f.id, e.id, g.id, h.id]);
    expect((await list(r, ws.secretKey)).find((x) => x.id === b.id)!.published).toBe(false);
  });

  it('returns all of a large set in one response', async () => {
    const ws = await t.ctx.createWorkspace();
    await insertCredibilityItems(t.ctx.sequelize, r.table, ws, 150);
    const listed = await list(r, ws.secretKey);
    expect(listed).toHaveLength(150);
    expect(listed.map((x) => x.sortOrder)).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
  });

  it('PATCH changes only the fields sent, answers the full record and moves updatedAt', async () => {
    const ws = await t.ctx.createWorkspace();
    const created = await create(r, ws.secretKey, { ...r.minimal, sortOrder: 3 });
    const res = await http<Envelope>(t.api.baseUrl, 'PATCH', `${r.path}/${created.id}`, { key: ws.secretKey, body: { ...r.change, published: false } });
    expect(res.status).toBe(200);
    const updated = res.body.data[r.single] as Record<string, unknown>;
    expect(updated).toEqual({ ...created, ...r.change, published: false, updatedAt: expect.stringMatching(ISO) });
    expect(Date.parse(updated.updatedAt as string)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt as string));
    expect(updated.createdAt).toBe(created.createdAt);
    const reread = await http<Envelope>(t.api.baseUrl, 'GET', `${r.path}/${created.id}`, { key: ws.secretKey });
    expect(reread.body.data[r.single]).toEqual(updated);

    const sorted = await http<Envelope>(t.api.baseUrl, 'PATCH', `${r.path}/${created.id}`, { key: ws.secretKey, body: { sortOrder: 9 } });
    expect(sorted.body.data[r.single]).toMatchObject({ ...r.change, sortOrder: 9, published: false });
  });

  it('PATCH that sends the stored values still moves updatedAt and nothing else', async () => {
    const ws = await t.ctx.createWorkspace();
    const created = await create(r, ws.secretKey);
    await t.ctx.sequelize.query(`UPDATE ${r.table} SET updated_at = updated_at - interval '1 hour' WHERE id = :id`, { replacements: { id: created.id } });
    const aged = (await http<Envelope>(t.api.baseUrl, 'GET', `${r.path}/${created.id}`, { key: ws.secretKey })).body.data[r.single] as Record<string, string>;
    const res = await http<Envelope>(t.api.baseUrl, 'PATCH', `${r.path}/${created.id}`, { key: ws.secretKey, body: r.minimal });
    const updated = res.body.data[r.single] as Record<string, string>;
    expect(updated).toEqual({ ...aged, updatedAt: expect.stringMatching(ISO) });
    expect(Date.parse(updated.updatedAt!)).toBeGreaterThan(Date.parse(aged.updatedAt!));
  });

  it.each([
    ['a JSON object with no fields', '{}'],
    ['no body at all', undefined],
  ])('PATCH with %s is 400 VALIDATION_ERROR and changes nothing', async (_label, rawBody) => {
    const ws = await t.ctx.createWorkspace();
    const created = await create(r, ws.secretKey);
    const before = await storedRow(t.ctx.sequelize, r.table, created.id);
    const headers: Record<string, string> = rawBody === undefined ? {} : { 'content-type': 'application/json' };
    const res = await http(t.api.baseUrl, 'PATCH', `${r.path}/${created.id}`, { key: ws.secretKey, rawBody, headers });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(await storedRow(t.ctx.sequelize, r.table, created.id)).toEqual(before);
  });

  it.each([
    [{ id: 'pfi_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }],
    [{ accountId: 'acc_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }],
    [{ createdAt: '2020-01-01T00:00:00Z' }],
    [{ nickname: 'x' }],
  ])('refuses the unknown or server-managed field %j on create and PATCH, writing nothing', async (extra) => {
    const ws = await t.ctx.createWorkspace();
    const created = await create(r, ws.secretKey);
    const before = await storedRow(t.ctx.sequelize, r.table, created.id);
    const post = await http(t.api.baseUrl, 'POST', r.path, { key: ws.secretKey, body: { ...r.minimal, ...extra } });
    expectError(post, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(post.body.error)).toContain(Object.keys(extra)[0]!);
    const patch = await http(t.api.baseUrl, 'PATCH', `${r.path}/${created.id}`, { key: ws.secretKey, body: { ...r.change, ...extra } });
    expectError(patch, 400, 'VALIDATION_ERROR');
    expect(await countRows(t.ctx.sequelize, r.table, ws.accountId)).toBe(1);
    expect(await storedRow(t.ctx.sequelize, r.table, created.id)).toEqual(before);
  });

  it.each([
    ['negative', -1],
    ['fractional', 1.5],
    ['a string', '1'],
    ['beyond a 32-bit integer', 2_147_483_648],
    ['null', null],
  ])('refuses a sortOrder that is %s on create and PATCH, writing nothing', async (_label, sortOrder) => {
    const ws = await t.ctx.createWorkspace();
    const created = await create(r, ws.secretKey);
    const before = await storedRow(t.ctx.sequelize, r.table, created.id);
    const post = await http(t.api.baseUrl, 'POST', r.path, { key: ws.secretKey, body: { ...r.minimal, sortOrder } });
    expectError(post, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(post.body.error)).toContain('sortOrder');
    expectError(await http(t.api.baseUrl, 'PATCH', `${r.path}/${created.id}`, { key: ws.secretKey, body: { sortOrder } }), 400, 'VALIDATION_ERROR');
    expect(await countRows(t.ctx.sequelize, r.table, ws.accountId)).toBe(1);
    expect(await storedRow(t.ctx.sequelize, r.table, created.id)).toEqual(before);
  });

  it('accepts the largest sortOrder the column holds', async () => {
    const ws = await t.ctx.createWorkspace();
    expect((await create(r, ws.secretKey, { ...r.minimal, sortOrder: 2_147_483_647 })).sortOrder).toBe(2_147_483_647);
  });

  it.each([['true'], [null], [1]])('refuses published %j on create and PATCH, writing nothing', async (published) => {
    const ws = await t.ctx.createWorkspace();
    const created = await create(r, ws.secretKey);
    const before = await storedRow(t.ctx.sequelize, r.table, created.id);
    expectError(await http(t.api.baseUrl, 'POST', r.path, { key: ws.secretKey, body: { ...r.minimal, published } }), 400, 'VALIDATION_ERROR');
    expectError(await http(t.api.baseUrl, 'PATCH', `${r.path}/${created.id}`, { key: ws.secretKey, body: { published } }), 400, 'VALIDATION_ERROR');
    expect(await countRows(t.ctx.sequelize, r.table, ws.accountId)).toBe(1);
    expect(await storedRow(t.ctx.sequelize, r.table, created.id)).toEqual(before);
  });

  it('refuses a body that is not JSON, writing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const res = await http(t.api.baseUrl, 'POST', r.path, { key: ws.secretKey, rawBody: 'title=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await countRows(t.ctx.sequelize, r.table, ws.accountId)).toBe(0);
  });

  it('DELETE removes the row for good and answers { deleted: true }; the id is then 404 everywhere', async () => {
    const ws = await t.ctx.createWorkspace();
    const created = await create(r, ws.secretKey);
    const keep = await create(r, ws.secretKey);
    const res = await http<Envelope>(t.api.baseUrl, 'DELETE', `${r.path}/${created.id}`, { key: ws.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ deleted: true });
    expect(await storedRow(t.ctx.sequelize, r.table, created.id)).toBeUndefined();
    expect(await storedRow(t.ctx.sequelize, r.table, keep.id)).toBeDefined();
    expectError(await http(t.api.baseUrl, 'GET', `${r.path}/${created.id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'PATCH', `${r.path}/${created.id}`, { key: ws.secretKey, body: r.change }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'DELETE', `${r.path}/${created.id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expect((await list(r, ws.secretKey)).map((x) => x.id)).toEqual([keep.id]);
  });

  it('answers 404 for a missing or malformed id', async () => {
    const ws = await t.ctx.createWorkspace();
    for (const id of [`${r.prefix}_01JD4X7V1QZ8N6Y3K2M5P9R0TS`, 'nope', 'prod_01JD4X7V1QZ8N6Y3K2M5P9R0TS']) {
      expectError(await http(t.api.baseUrl, 'GET', `${r.path}/${id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
      expectError(await http(t.api.baseUrl, 'PATCH', `${r.path}/${id}`, { key: ws.secretKey, body: r.change }), 404, 'RESOURCE_NOT_FOUND');
      expectError(await http(t.api.baseUrl, 'DELETE', `${r.path}/${id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    }
    expect(await countRows(t.ctx.sequelize, r.table, ws.accountId)).toBe(0);
  });

  it('answers 404 for another workspace’s record on GET, PATCH and DELETE, and leaves it untouched', async () => {
    const owner = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    const created = await create(r, owner.secretKey);
    const before = await storedRow(t.ctx.sequelize, r.table, created.id);
    const url = `${r.path}/${created.id}`;
    expectError(await http(t.api.baseUrl, 'GET', url, { key: other.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'PATCH', url, { key: other.secretKey, body: r.change }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'DELETE', url, { key: other.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expect(await list(r, other.secretKey)).toEqual([]);
    expect(await storedRow(t.ctx.sequelize, r.table, created.id)).toEqual(before);
  });

  it('keeps test and live apart: a test key gets 404 on live data, and each list shows its own environment', async () => {
    const ws = await t.ctx.createWorkspace();
    const live = await create(r, ws.liveSecretKey);
    const test = await create(r, ws.secretKey);
    const before = await storedRow(t.ctx.sequelize, r.table, live.id);
    const url = `${r.path}/${live.id}`;
    expectError(await http(t.api.baseUrl, 'GET', url, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'PATCH', url, { key: ws.secretKey, body: r.change }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'DELETE', url, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expect(await storedRow(t.ctx.sequelize, r.table, live.id)).toEqual(before);
    expect((await list(r, ws.secretKey)).map((x) => x.id)).toEqual([test.id]);
    expect((await list(r, ws.liveSecretKey)).map((x) => x.id)).toEqual([live.id]);
    expect((await storedRow(t.ctx.sequelize, r.table, live.id))!.environment).toBe('live');
  });

  it('refuses publishable keys with 403 on every route, writing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const created = await create(r, ws.secretKey);
    const before = await storedRow(t.ctx.sequelize, r.table, created.id);
    const url = `${r.path}/${created.id}`;
    for (const key of [ws.publishableKey, ws.livePublishableKey]) {
      expectError(await http(t.api.baseUrl, 'GET', r.path, { key }), 403, 'FORBIDDEN');
      expectError(await http(t.api.baseUrl, 'POST', r.path, { key, body: r.minimal }), 403, 'FORBIDDEN');
      expectError(await http(t.api.baseUrl, 'GET', url, { key }), 403, 'FORBIDDEN');
      expectError(await http(t.api.baseUrl, 'PATCH', url, { key, body: r.change }), 403, 'FORBIDDEN');
      expectError(await http(t.api.baseUrl, 'DELETE', url, { key }), 403, 'FORBIDDEN');
    }
    expect(await countRows(t.ctx.sequelize, r.table, ws.accountId)).toBe(1);
    expect(await storedRow(t.ctx.sequelize, r.table, created.id)).toEqual(before);
  });

  it('requires an API key', async () => {
    expectError(await http(t.api.baseUrl, 'GET', r.path), 401, 'AUTHENTICATION_REQUIRED');
    expectError(await http(t.api.baseUrl, 'POST', r.path, { body: r.minimal }), 401, 'AUTHENTICATION_REQUIRED');
  });

  it('replays a create sent twice with the same Idempotency-Key, storing one record', async () => {
    const ws = await t.ctx.createWorkspace();
    const send = () => http<Envelope>(t.api.baseUrl, 'POST', r.path, { key: ws.secretKey, body: r.minimal, headers: { 'idempotency-key': 'create-once' } });
    const first = await send();
    const second = await send();
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.data).toEqual(first.body.data);
    expect(await countRows(t.ctx.sequelize, r.table, ws.accountId)).toBe(1);
  });
});

describe('OpenAPI', () => {
  it('documents the three resources with strict bodies generated from the validating schemas', async () => {
    const res = await http<{ paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[]; additionalProperties?: unknown }> } }>(
      t.api.baseUrl,
      'GET',
      '/api/openapi.json',
    );
    for (const path of ['/v1/portfolio', '/v1/testimonials', '/v1/certifications']) {
      expect(Object.keys(res.body.paths[path]!).sort()).toEqual(['get', 'post']);
      expect(Object.keys(res.body.paths[`${path}/{id}`]!).sort()).toEqual(['delete', 'get', 'patch']);
    }
    const { schemas } = res.body.components;
    expect(schemas.CreatePortfolioItemBody!.required).toEqual(['title']);
    expect(schemas.CreateTestimonialBody!.required).toEqual(['authorName', 'quote']);
    expect(schemas.CreateCertificationBody!.required).toEqual(['name', 'issuer']);
    expect(schemas.UpdateCertificationBody!.additionalProperties).toBe(false);
    expect(Object.keys(schemas.CreateCertificationBody!.properties!)).not.toContain('productId');
  });
});
