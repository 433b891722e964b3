import { QueryTypes } from 'sequelize';
import { Customer } from '../../db/models';
import type { PaymentSandbox } from '../../lib/payment-provider/sandbox';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { sandboxEnv, startTestSandbox } from '../helpers/payment-sandbox';

// Customers in provider mode (the payment module on), against the sandbox provider over loopback sockets.

const CUSTOMERS = '/api/v1/payment/customers';
type CustomerDto = { id: string; email: string | null; name: string; metadata: Record<string, string> };
type Page = { data: CustomerDto[]; meta: { page: { nextCursor: string | null } } };

let ctx: TestContext;
let api: TestApi;
let sandbox: PaymentSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  ctx = await createTestContext();
  api = await ctx.startApi(sandboxEnv(sandbox.baseUrl));
});
afterAll(async () => {
  await ctx.close();
  await sandbox.close();
});

async function paymentModule(key: string, enabled: boolean) {
  expect((await http(api.baseUrl, 'POST', '/api/v1/modules', { key, body: { module: 'payment', enabled } })).status).toBe(200);
}

const create = (key: string, body: Record<string, unknown>) => http<{ data: CustomerDto }>(api.baseUrl, 'POST', CUSTOMERS, { key, body });

const customerEvents = (accountId: string) =>
  ctx.sequelize.query<{ type: string; data: CustomerDto }>(`SELECT type, data FROM events WHERE account_id = $1 AND type = 'customer.created' ORDER BY created_at`, {
    bind: [accountId],
    type: QueryTypes.SELECT,
  });

describe('customers in provider mode', () => {
  it('creates a cus_ customer at the provider (our id as its reference), e-mail optional and not unique, with customer.created', async () => {
    const ws = await ctx.createWorkspace();
    await paymentModule(ws.secretKey, true);

    const withEmail = await create(ws.secretKey, { email: 'same@example.com', name: 'Ada', metadata: { tier: 'gold' } });
    expect(withEmail.status).toBe(201);
    expect(withEmail.body.data).toMatchObject({ id: expect.stringMatching(/^cus_[0-9A-Z]{26}$/), email: 'same@example.com', name: 'Ada', metadata: { tier: 'gold' } });
    const again = await create(ws.secretKey, { email: 'same@example.com', name: 'Ada again' });
    expect(again.status).toBe(201);
    const without = await create(ws.secretKey, { name: 'No e-mail' });
    expect(without.status).toBe(201);
    expect(without.body.data.email).toBeNull();

    const row = (await Customer.findByPk(withEmail.body.data.id))!;
    const atProvider = sandbox.customers.get(row.providerCustomerId!);
    expect(atProvider).toMatchObject({ reference_id: row.id, email: 'same@example.com', metadata: { tier: 'gold' } });
    // The test environment's key: the sandbox's second account.
    expect(atProvider!.account).toBe(1);

    const events = await customerEvents(ws.accountId);
    expect(events.map((e) => e.data.id)).toEqual([withEmail.body.data.id, again.body.data.id, without.body.data.id]);
    expect(events[0]!.data).toEqual(withEmail.body.data);

    // The e-mail filter finds both customers sharing it.
    const filtered = await http<Page>(api.baseUrl, 'GET', `${CUSTOMERS}?email=same%40example.com`, { key: ws.secretKey });
    expect(filtered.body.data.map((c) => c.id)).toEqual([again.body.data.id, withEmail.body.data.id]);
  });

  it('a PATCH to an e-mail another provider customer has is allowed', async () => {
    const ws = await ctx.createWorkspace();
    await paymentModule(ws.secretKey, true);
    await create(ws.secretKey, { email: 'taken@example.com', name: 'A' });
    const other = await create(ws.secretKey, { email: 'other@example.com', name: 'B' });
    const res = await http<{ data: CustomerDto }>(api.baseUrl, 'PATCH', `${CUSTOMERS}/${other.body.data.id}`, { key: ws.secretKey, body: { email: 'taken@example.com' } });
    expect(res.status).toBe(200);
    expect(res.body.data.email).toBe('taken@example.com');
  });

  it('a PATCH of the e-mail, name or metadata reaches the provider customer; one that changes none of them is not sent', async () => {
    const ws = await ctx.createWorkspace();
    await paymentModule(ws.secretKey, true);
    const created = await create(ws.secretKey, { email: 'before@example.com', name: 'Before', metadata: { paymentMethodId: 'pm_1' } });
    const row = (await Customer.findByPk(created.body.data.id))!;
    const atProvider = () => sandbox.customers.get(row.providerCustomerId!)!;
    const patch = (body: Record<string, unknown>) => http<{ data: CustomerDto }>(api.baseUrl, 'PATCH', `${CUSTOMERS}/${row.id}`, { key: ws.secretKey, body });

    expect((await patch({ email: 'after@example.com', name: 'After', metadata: { paymentMethodId: 'pm_2' } })).status).toBe(200);
    expect(atProvider()).toMatchObject({ email: 'after@example.com', individual_detail: { given_names: 'After' }, metadata: { paymentMethodId: 'pm_2' } });
    // Changed at the provider's side since: a PATCH that changes nothing of ours must not overwrite it.
    atProvider().individual_detail = { given_names: 'Set at the provider' };
    expect((await patch({ name: 'After' })).status).toBe(200);
    expect(atProvider()).toMatchObject({ individual_detail: { given_names: 'Set at the provider' } });
  });

  it('a PATCH the provider does not take is 502 PARTNER_UNAVAILABLE and changes nothing of ours', async () => {
    const ws = await ctx.createWorkspace();
    await paymentModule(ws.secretKey, true);
    const created = await create(ws.secretKey, { email: 'kept@example.com', name: 'Kept' });
    const row = (await Customer.findByPk(created.body.data.id))!;
    // The provider lost its customer (deleted from its dashboard): it answers 404 to the PATCH.
    sandbox.customers.delete(row.providerCustomerId!);
    expectError(await http(api.baseUrl, 'PATCH', `${CUSTOMERS}/${row.id}`, { key: ws.secretKey, body: { name: 'Changed' } }), 502, 'PARTNER_UNAVAILABLE');
    expect((await Customer.findByPk(row.id))!.get()).toEqual(row.get());
  });

  it('local mode still requires the e-mail, keeps it unique and emits nothing', async () => {
    const ws = await ctx.createWorkspace();
    expectError(await create(ws.secretKey, { name: 'No e-mail' }), 400, 'VALIDATION_ERROR');
    const first = await create(ws.secretKey, { email: 'x@example.com', name: 'X' });
    expect(first.body.data.id).toMatch(/^cust_/);
    expectError(await create(ws.secretKey, { email: 'x@example.com', name: 'Y' }), 409, 'VALIDATION_ERROR');
    expect(await Customer.count({ where: { accountId: ws.accountId } })).toBe(1);
    expect(await customerEvents(ws.accountId)).toEqual([]);
    expect([...sandbox.customers.values()].some((c) => c.reference_id === first.body.data.id)).toBe(false);
  });

  it('lists newest first across cust_ and cus_ ids, in cursor pages', async () => {
    const ws = await ctx.createWorkspace();
    const ids: string[] = [];
    ids.push((await create(ws.secretKey, { email: 'l1@example.com', name: 'Local 1' })).body.data.id);
    await paymentModule(ws.secretKey, true);
    ids.push((await create(ws.secretKey, { name: 'Provider 1' })).body.data.id);
    await paymentModule(ws.secretKey, false);
    ids.push((await create(ws.secretKey, { email: 'l2@example.com', name: 'Local 2' })).body.data.id);
    await paymentModule(ws.secretKey, true);
    ids.push((await create(ws.secretKey, { name: 'Provider 2' })).body.data.id);
    expect(ids.map((id) => id.split('_')[0])).toEqual(['cust', 'cus', 'cust', 'cus']);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: Page } = await http<Page>(api.baseUrl, 'GET', `${CUSTOMERS}?limit=1${cursor ? `&cursor=${cursor}` : ''}`, { key: ws.secretKey });
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((c) => c.id));
      cursor = res.body.meta.page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    const whole = await http<Page>(api.baseUrl, 'GET', `${CUSTOMERS}?limit=3`, { key: ws.secretKey });
    expect(whole.body.data.map((c) => c.id)).toEqual([ids[3], ids[2], ids[1]]);
    const rest = await http<Page>(api.baseUrl, 'GET', `${CUSTOMERS}?limit=3&cursor=${whole.body.meta.page.nextCursor}`, { key: ws.secretKey });
    expect(rest.body.data.map((c) => c.id)).toEqual([ids[0]]);
    expect(rest.body.meta.page.nextCursor).toBeNull();
  });

  it('refuses a cursor that is not a position of this list', async () => {
    const ws = await ctx.createWorkspace();
    const bad = [Buffer.from('v1:cust_01JD4X7V1QZ8N6Y3K2M5P9R0TS').toString('base64url'), Buffer.from('v2:yesterday|cus_01JD4X7V1QZ8N6Y3K2M5P9R0TS').toString('base64url'), Buffer.from('v2:2026-01-01 00:00:00.000000+00|prod_01JD4X7V1QZ8N6Y3K2M5P9R0TS').toString('base64url'), Buffer.from('v2:2026-02-30 00:00:00.000000+00|cus_01JD4X7V1QZ8N6Y3K2M5P9R0TS').toString('base64url'), Buffer.from('v2:2026-01-01 00:00:00+00|cus_01JD4X7V1QZ8N6Y3K2M5P9R0TS').toString('base64url')];
    for (const cursor of bad) expectError(await http(api.baseUrl, 'GET', `${CUSTOMERS}?cursor=${cursor}`, { key: ws.secretKey }), 400, 'VALIDATION_ERROR');
  });

  it('a provider that does not answer is 502 PARTNER_UNAVAILABLE and nothing is written', async () => {
    const down = await startTestSandbox();
    const baseUrl = down.baseUrl;
    await down.close();
    const other = await ctx.startApi(sandboxEnv(baseUrl));
    const ws = await ctx.createWorkspace();
    await paymentModule(ws.secretKey, true);
    expectError(await http(other.baseUrl, 'POST', CUSTOMERS, { key: ws.secretKey, body: { email: 'x@example.com', name: 'X' } }), 502, 'PARTNER_UNAVAILABLE');
    expect(await Customer.count({ where: { accountId: ws.accountId } })).toBe(0);
    expect(await customerEvents(ws.accountId)).toEqual([]);
  });
});
