import { Customer } from '../../db/models';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';

const t = useTestApi();
const CUSTOMERS = '/api/v1/payment/customers';

type CustomerDto = { id: string; accountId: string; email: string | null; name: string | null; metadata: Record<string, string>; testClock: string | null; createdAt: string; updatedAt: string };
type Page = { data: CustomerDto[]; meta: { page: { nextCursor: string | null } } };

const countCustomers = (accountId: string) => Customer.count({ where: { accountId } });

describe('POST /v1/payment/customers', () => {
  it('creates a cust_ customer with email, name and metadata', async () => {
    const ws = await t.ctx.createWorkspace();
    const res = await http<{ data: CustomerDto }>(t.api.baseUrl, 'POST', CUSTOMERS, {
      key: ws.secretKey,
      body: { email: 'Ada@Example.com', name: 'Ada Lovelace', metadata: { tier: 'gold' } },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^cust_[0-9A-Z]{26}$/),
      accountId: ws.accountId,
      email: 'Ada@Example.com',
      name: 'Ada Lovelace',
      metadata: { tier: 'gold' },
      testClock: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it('creates a customer from the e-mail alone: the name is optional (document 2) and reads back null', async () => {
    const ws = await t.ctx.createWorkspace();
    const res = await http<{ data: CustomerDto }>(t.api.baseUrl, 'POST', CUSTOMERS, { key: ws.secretKey, body: { email: 'nameless@example.com' } });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ email: 'nameless@example.com', name: null, metadata: {} });
    const read = await http<{ data: CustomerDto }>(t.api.baseUrl, 'GET', `${CUSTOMERS}/${res.body.data.id}`, { key: ws.secretKey });
    expect(read.body.data.name).toBeNull();
    expect(await countCustomers(ws.accountId)).toBe(1);
  });

  it('documents the name as optional and nullable in the OpenAPI document', async () => {
    type Schema = { required?: string[]; properties: Record<string, { type?: unknown; anyOf?: Array<{ type?: string }> }> };
    const doc = await http<{ components: { schemas: Record<string, Schema> } }>(t.api.baseUrl, 'GET', '/api/openapi.json');
    const { CreateCustomerBody, Customer: customer } = doc.body.components.schemas;
    expect(CreateCustomerBody!.required ?? []).not.toContain('name');
    expect(JSON.stringify(customer!.properties.name)).toContain('null');
  });

  it.each([
    ['no email', { name: 'A' }],
    ['a malformed email', { email: 'not-an-email', name: 'A' }],
    ['an email over 320 characters', { email: `${'a'.repeat(64)}@${'b'.repeat(252)}.com`, name: 'A' }],
    ['an empty name', { email: 'a@example.com', name: '' }],
    ['a name over 255 characters', { email: 'a@example.com', name: 'n'.repeat(256) }],
    ['51 metadata entries', { email: 'a@example.com', name: 'A', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }],
    ['a non-string metadata value', { email: 'a@example.com', name: 'A', metadata: { n: 1 } }],
    ['an unknown field', { email: 'a@example.com', name: 'A', phone: '1' }],
  ])('refuses %s with 400 VALIDATION_ERROR and writes nothing', async (_case, body) => {
    const ws = await t.ctx.createWorkspace();
    const res = await http(t.api.baseUrl, 'POST', CUSTOMERS, { key: ws.secretKey, body });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(await countCustomers(ws.accountId)).toBe(0);
  });

  it('refuses a duplicate e-mail in the workspace and environment with 409 VALIDATION_ERROR; another case or environment is a different customer', async () => {
    const ws = await t.ctx.createWorkspace();
    const body = { email: 'dup@example.com', name: 'First' };
    expect((await http(t.api.baseUrl, 'POST', CUSTOMERS, { key: ws.secretKey, body })).status).toBe(201);
    const again = await http(t.api.baseUrl, 'POST', CUSTOMERS, { key: ws.secretKey, body: { ...body, name: 'Second' } });
    expectError(again, 409, 'VALIDATION_ERROR');
    expect(await countCustomers(ws.accountId)).toBe(1);
    expect((await http(t.api.baseUrl, 'POST', CUSTOMERS, { key: ws.secretKey, body: { ...body, email: 'DUP@example.com' } })).status).toBe(201);
    expect((await http(t.api.baseUrl, 'POST', CUSTOMERS, { key: ws.liveSecretKey, body })).status).toBe(201);
  });

  it('lets exactly one of two concurrent creates with one e-mail through', async () => {
    const ws = await t.ctx.createWorkspace();
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => http(t.api.baseUrl, 'POST', CUSTOMERS, { key: ws.secretKey, body: { email: 'race@example.com', name: `Racer ${i}` } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(await countCustomers(ws.accountId)).toBe(1);
  });

  it('refuses past the plan cap with 403 QUOTA_EXCEEDED (free: 100 per environment) and writes nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    await Customer.bulkCreate(
      Array.from({ length: 100 }, (_, i) => ({ id: `cust_01JD4X7V1QZ8N6Y3K2M5P9${String(i).padStart(4, '0')}`, accountId: ws.accountId, environment: 'test' as const, email: `c${i}@example.com`, name: 'C' })),
    );
    const res = await http(t.api.baseUrl, 'POST', CUSTOMERS, { key: ws.secretKey, body: { email: 'over@example.com', name: 'Over' } });
    expectError(res, 403, 'QUOTA_EXCEEDED');
    expect(await countCustomers(ws.accountId)).toBe(100);
    expect((await http(t.api.baseUrl, 'POST', CUSTOMERS, { key: ws.liveSecretKey, body: { email: 'over@example.com', name: 'Live' } })).status).toBe(201);
  });

  it('refuses a testClock that does not exist, and any testClock in live, with 400', async () => {
    const ws = await t.ctx.createWorkspace();
    const body = { email: 'clock@example.com', name: 'C', testClock: 'clock_01JD4X7V1QZ8N6Y3K2M5P9R0TS' };
    expectError(await http(t.api.baseUrl, 'POST', CUSTOMERS, { key: ws.secretKey, body }), 400, 'VALIDATION_ERROR');
    expectError(await http(t.api.baseUrl, 'POST', CUSTOMERS, { key: ws.liveSecretKey, body }), 400, 'VALIDATION_ERROR');
    expect(await countCustomers(ws.accountId)).toBe(0);
  });
});

describe('GET /v1/payment/customers', () => {
  it('lists newest first in cursor pages and filters on the exact, case-sensitive e-mail', async () => {
    const ws = await t.ctx.createWorkspace();
    const ids: string[] = [];
    for (const email of ['a@example.com', 'b@example.com', 'B@example.com']) {
      ids.push((await http<{ data: CustomerDto }>(t.api.baseUrl, 'POST', CUSTOMERS, { key: ws.secretKey, body: { email, name: 'X' } })).body.data.id);
    }
    const first = await http<Page>(t.api.baseUrl, 'GET', `${CUSTOMERS}?limit=2`, { key: ws.secretKey });
    expect(first.body.data.map((c) => c.id)).toEqual([ids[2], ids[1]]);
    const second = await http<Page>(t.api.baseUrl, 'GET', `${CUSTOMERS}?limit=2&cursor=${first.body.meta.page.nextCursor}`, { key: ws.secretKey });
    expect(second.body.data.map((c) => c.id)).toEqual([ids[0]]);
    const filtered = await http<Page>(t.api.baseUrl, 'GET', `${CUSTOMERS}?email=${encodeURIComponent('B@example.com')}`, { key: ws.secretKey });
    expect(filtered.body.data.map((c) => c.id)).toEqual([ids[2]]);
    const live = await http<Page>(t.api.baseUrl, 'GET', CUSTOMERS, { key: ws.liveSecretKey });
    expect(live.body.data).toEqual([]);
  });
});

describe('GET and PATCH /v1/payment/customers/:id', () => {
  async function created(key: string, email = 'p@example.com') {
    return (await http<{ data: CustomerDto }>(t.api.baseUrl, 'POST', CUSTOMERS, { key, body: { email, name: 'Before', metadata: { a: '1' } } })).body.data;
  }

  it('retrieves, patches partially, replaces metadata and clears it with null', async () => {
    const ws = await t.ctx.createWorkspace();
    const customer = await created(ws.secretKey);
    expect((await http<{ data: CustomerDto }>(t.api.baseUrl, 'GET', `${CUSTOMERS}/${customer.id}`, { key: ws.secretKey })).body.data).toEqual(customer);
    const renamed = await http<{ data: CustomerDto }>(t.api.baseUrl, 'PATCH', `${CUSTOMERS}/${customer.id}`, { key: ws.secretKey, body: { name: 'After', metadata: { b: '2' } } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'After', email: 'p@example.com', metadata: { b: '2' } });
    const cleared = await http<{ data: CustomerDto }>(t.api.baseUrl, 'PATCH', `${CUSTOMERS}/${customer.id}`, { key: ws.secretKey, body: { metadata: null } });
    expect(cleared.body.data.metadata).toEqual({});
  });

  it('refuses a PATCH to an e-mail another customer has with 409 VALIDATION_ERROR, changing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    await created(ws.secretKey, 'taken@example.com');
    const customer = await created(ws.secretKey, 'mine@example.com');
    const res = await http(t.api.baseUrl, 'PATCH', `${CUSTOMERS}/${customer.id}`, { key: ws.secretKey, body: { email: 'taken@example.com', name: 'Changed' } });
    expectError(res, 409, 'VALIDATION_ERROR');
    const row = await Customer.findByPk(customer.id);
    expect({ email: row?.email, name: row?.name }).toEqual({ email: 'mine@example.com', name: 'Before' });
  });

  it('refuses a bad PATCH body with 400 and changes nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const customer = await created(ws.secretKey);
    for (const body of [{ email: 'nope' }, { name: '' }, { unknown: true }, { metadata: { x: 1 } }]) {
      expectError(await http(t.api.baseUrl, 'PATCH', `${CUSTOMERS}/${customer.id}`, { key: ws.secretKey, body }), 400, 'VALIDATION_ERROR');
    }
    expect((await Customer.findByPk(customer.id))?.name).toBe('Before');
  });

  it('answers 404 RESOURCE_NOT_FOUND for an unknown id, and has no DELETE (405 METHOD_NOT_ALLOWED)', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await http(t.api.baseUrl, 'GET', `${CUSTOMERS}/cust_01JD4X7V1QZ8N6Y3K2M5P9R0TS`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    const customer = await created(ws.secretKey);
    expectError(await http(t.api.baseUrl, 'DELETE', `${CUSTOMERS}/${customer.id}`, { key: ws.secretKey }), 405, 'METHOD_NOT_ALLOWED');
    expect(await countCustomers(ws.accountId)).toBe(1);
  });

  it('needs a secret key', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await http(t.api.baseUrl, 'GET', CUSTOMERS, { key: ws.publishableKey }), 403, 'FORBIDDEN');
    expectError(await http(t.api.baseUrl, 'GET', CUSTOMERS), 401, 'AUTHENTICATION_REQUIRED');
  });
});
