import { Account, AuditLog, WebhookDeliveryAttempt, WebhookEndpoint } from '../../db/models';
import { EVENT_TYPES } from '../../lib/event-types';
import { loadConfig, requireEncryptionKey } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import { verifyWebhookSignature } from '../../lib/webhooks/signature';
import { createWebhookAgent } from '../../lib/webhooks/send';
import { insertDeliveryAttempt } from '../fixtures/webhooks';
import { http, useTestApi, type HttpResult, type TestApi } from '../helpers/context';
import { waitFor } from '../helpers/wait';
import { expectError } from '../helpers/expect';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type TestCertificates } from '../helpers/https-receiver';
import { startTestWorker, type RunningWorker } from '../helpers/worker';

const t = useTestApi();
const box = createCryptoBox(requireEncryptionKey(loadConfig(process.env)));

const BASE = '/api/v1/payment/webhook-endpoints';
// Public name: resolves to public addresses where there is DNS, and not at all offline (accepted either way).
const PUBLIC_URL = 'https://hooks.example.com/commerce';

interface EndpointDto {
  id: string;
  accountId: string;
  url: string;
  events: string[];
  description: string | null;
  active: boolean;
  secret: string;
  createdAt: string;
  updatedAt: string;
}
type One = { data: EndpointDto };
type Many = { data: EndpointDto[]; meta: { page: { nextCursor: string | null } } };

async function register(key: string, body: Record<string, unknown> = { url: PUBLIC_URL }, api: TestApi = t.api) {
  const res = await http<One>(api.baseUrl, 'POST', BASE, { key, body });
  expect(res.status).toBe(201);
  return res.body.data;
}

const merchantRows = (accountId: string) => WebhookEndpoint.findAll({ where: { accountId, systemKind: null }, order: [['id', 'ASC']] });

/** Every column of a row, to prove a refused request changed nothing. */
const snapshot = async (id: string) => (await WebhookEndpoint.findByPk(id))!.toJSON();

describe('POST /v1/payment/webhook-endpoints', () => {
  it('returns the full whsec_ secret once, stores it only sealed, and audits the creation', async () => {
    const ws = await t.ctx.createWorkspace();
    const res = await http<One>(t.api.baseUrl, 'POST', BASE, {
      key: ws.secretKey,
      body: { url: PUBLIC_URL, events: ['service.product.created.v1', 'checkout.completed', 'checkout.completed'], description: 'Orders' },
    });
    expect(res.status).toBe(201);
    const created = res.body.data;
    expect(created).toMatchObject({
      accountId: ws.accountId,
      url: PUBLIC_URL,
      events: ['service.product.created.v1', 'checkout.completed'],
      description: 'Orders',
      active: true,
    });
    expect(created.id).toMatch(/^whe_[0-9A-Z]{26}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);

    const row = (await WebhookEndpoint.findByPk(created.id))!;
    expect(JSON.stringify(row.toJSON())).not.toContain(created.secret.slice(6));
    expect(box.open(row.secretSealed)).toBe(created.secret);

    for (const read of [
      (await http<Many>(t.api.baseUrl, 'GET', BASE, { key: ws.secretKey })).body.data.find((e) => e.id === created.id)!,
      (await http<One>(t.api.baseUrl, 'GET', `${BASE}/${created.id}`, { key: ws.secretKey })).body.data,
    ]) {
      expect(read).toEqual({ ...created, secret: 'whsec_***' });
    }
    const actions = (await AuditLog.findAll({ where: { targetId: created.id } })).map((a) => a.action);
    expect(actions).toEqual(['webhook_endpoint.created']);
  });

  it('subscribes to every type when events is empty or omitted, and honours active:false', async () => {
    const ws = await t.ctx.createWorkspace();
    expect((await register(ws.secretKey, { url: PUBLIC_URL })).events).toEqual([]);
    const inactive = await register(ws.secretKey, { url: PUBLIC_URL, events: [], active: false });
    expect(inactive).toMatchObject({ events: [], active: false });
  });

  const refused: Array<[string, Record<string, unknown>, string]> = [
    ['an http URL', { url: 'http://hooks.example.com/x' }, 'https'],
    ['a relative URL', { url: '/webhooks' }, 'url'],
    ['a loopback IP', { url: 'https://127.0.0.1/x' }, 'private'],
    ['a private IP', { url: 'https://10.1.2.3/x' }, 'private'],
    ['a private IP (192.168/16)', { url: 'https://192.168.0.10/x' }, 'private'],
    ['a link-local IP (metadata service)', { url: 'https://169.254.169.254/latest' }, 'private'],
    ['the unspecified address', { url: 'https://0.0.0.0/x' }, 'private'],
    ['IPv6 loopback', { url: 'https://[::1]/x' }, 'private'],
    ['IPv4-mapped IPv6 loopback', { url: 'https://[::ffff:127.0.0.1]/x' }, 'private'],
    ['IPv6 unique-local', { url: 'https://[fd00::1]/x' }, 'private'],
    ['a decimal-encoded loopback', { url: 'https://2130706433/x' }, 'private'],
    ['a name resolving to loopback', { url: 'https://localhost:8443/x' }, 'private'],
    ['a description over 200 characters', { url: PUBLIC_URL, description: 'x'.repeat(201) }, 'description'],
    ['an unknown event type', { url: PUBLIC_URL, events: ['checkout.completed', 'order.shipped'] }, 'order.shipped'],
    ['an unknown field', { url: PUBLIC_URL, secret: 'whsec_mine' }, 'secret'],
    ['a missing url', { events: [] }, 'url'],
  ];
  it.each(refused)('refuses %s with 400 VALIDATION_ERROR and writes nothing', async (_what, body, mention) => {
    const ws = await t.ctx.createWorkspace();
    const res = await http(t.api.baseUrl, 'POST', BASE, { key: ws.secretKey, body });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(res.body.error)).toContain(mention);
    expect(await WebhookEndpoint.count({ where: { accountId: ws.accountId } })).toBe(0);
    expect(await AuditLog.count({ where: { accountId: ws.accountId, targetType: 'webhook_endpoint' } })).toBe(0);
  });

  it('names every valid event type when refusing an unknown one', async () => {
    const ws = await t.ctx.createWorkspace();
    const res = await http<{ error: { message: string } }>(t.api.baseUrl, 'POST', BASE, { key: ws.secretKey, body: { url: PUBLIC_URL, events: ['nope'] } });
    expectError(res, 400, 'VALIDATION_ERROR');
    for (const type of EVENT_TYPES) expect(res.body.error.message).toContain(type);
  });

  it('accepts private targets when WEBHOOK_ALLOW_PRIVATE_URLS=true', async () => {
    const api = await t.ctx.startApi({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    const ws = await t.ctx.createWorkspace();
    expect((await register(ws.secretKey, { url: 'https://127.0.0.1:9/x' }, api)).url).toBe('https://127.0.0.1:9/x');
  });

  it('caps endpoints per plan with 403 QUOTA_EXCEEDED, race-safe, not counting system endpoints', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'free' }); // cap 3
    await http(t.api.baseUrl, 'GET', '/api/v1/modules', { key: ws.secretKey }); // creates the system endpoint(s)
    const results = await Promise.all(
      Array.from({ length: 6 }, () => http(t.api.baseUrl, 'POST', BASE, { key: ws.secretKey, body: { url: PUBLIC_URL } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 403, 403, 403]);
    for (const r of results.filter((x) => x.status === 403)) expectError(r as HttpResult, 403, 'QUOTA_EXCEEDED');
    expect(await merchantRows(ws.accountId)).toHaveLength(3);
    // The cap counts per environment: live has its own three.
    expect((await http(t.api.baseUrl, 'POST', BASE, { key: ws.liveSecretKey, body: { url: PUBLIC_URL } })).status).toBe(201);
  });
});

describe('access and isolation', () => {
  it('answers 404 for another workspace’s endpoint on every route, changing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    const endpoint = await register(ws.secretKey);
    const before = await snapshot(endpoint.id);
    const key = other.secretKey;
    expectError(await http(t.api.baseUrl, 'GET', `${BASE}/${endpoint.id}`, { key }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'PATCH', `${BASE}/${endpoint.id}`, { key, body: { rotateSecret: true } }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'PATCH', `${BASE}/${endpoint.id}`, { key, body: { url: 'https://attacker.example.com/' } }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'DELETE', `${BASE}/${endpoint.id}`, { key }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'GET', `${BASE}/${endpoint.id}/deliveries`, { key }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'POST', `${BASE}/${endpoint.id}/test`, { key }), 404, 'RESOURCE_NOT_FOUND');
    expect((await http<Many>(t.api.baseUrl, 'GET', BASE, { key })).body.data.map((e) => e.id)).not.toContain(endpoint.id);
    expect(await snapshot(endpoint.id)).toEqual(before);
    expect(box.open(before.secretSealed)).toBe(endpoint.secret);
  });

  it('keeps test and live apart: a test key gets 404 on a live endpoint', async () => {
    const ws = await t.ctx.createWorkspace();
    const live = await register(ws.liveSecretKey);
    expectError(await http(t.api.baseUrl, 'GET', `${BASE}/${live.id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'DELETE', `${BASE}/${live.id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expect(await WebhookEndpoint.count({ where: { id: live.id } })).toBe(1);
  });

  it('refuses a publishable key with 403, writing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await http(t.api.baseUrl, 'GET', BASE, { key: ws.publishableKey }), 403, 'FORBIDDEN');
    expectError(await http(t.api.baseUrl, 'POST', BASE, { key: ws.publishableKey, body: { url: PUBLIC_URL } }), 403, 'FORBIDDEN');
    expect(await WebhookEndpoint.count({ where: { accountId: ws.accountId } })).toBe(0);
  });
});

describe('PATCH /v1/payment/webhook-endpoints/:id', () => {
  it('updates url, events, description and active; rotateSecret returns a new secret that replaces the old at once', async () => {
    const ws = await t.ctx.createWorkspace();
    const endpoint = await register(ws.secretKey, { url: PUBLIC_URL, description: 'old' });
    const res = await http<One>(t.api.baseUrl, 'PATCH', `${BASE}/${endpoint.id}`, {
      key: ws.secretKey,
      body: { url: 'https://hooks.example.com/v2', events: ['payout.paid'], description: null },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ url: 'https://hooks.example.com/v2', events: ['payout.paid'], description: null, secret: 'whsec_***' });

    const rotated = await http<One>(t.api.baseUrl, 'PATCH', `${BASE}/${endpoint.id}`, { key: ws.secretKey, body: { rotateSecret: true } });
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(endpoint.secret);
    expect(box.open((await WebhookEndpoint.findByPk(endpoint.id))!.secretSealed)).toBe(rotated.body.data.secret);
    const actions = (await AuditLog.findAll({ where: { targetId: endpoint.id }, order: [['id', 'ASC']] })).map((a) => a.action);
    expect(actions).toEqual(['webhook_endpoint.created', 'webhook_endpoint.updated', 'webhook_endpoint.secret_rotated']);
  });

  it('disabling bumps the delivery epoch (dropping pending retries); re-enabling resets the failure streak', async () => {
    const ws = await t.ctx.createWorkspace();
    const endpoint = await register(ws.secretKey);
    await WebhookEndpoint.update({ consecutiveFailures: 7 }, { where: { id: endpoint.id } });
    await http(t.api.baseUrl, 'PATCH', `${BASE}/${endpoint.id}`, { key: ws.secretKey, body: { active: false } });
    expect((await WebhookEndpoint.findByPk(endpoint.id))!.toJSON()).toMatchObject({ active: false, deliveryEpoch: 1, consecutiveFailures: 7 });
    await http(t.api.baseUrl, 'PATCH', `${BASE}/${endpoint.id}`, { key: ws.secretKey, body: { active: true } });
    expect((await WebhookEndpoint.findByPk(endpoint.id))!.toJSON()).toMatchObject({ active: true, deliveryEpoch: 1, consecutiveFailures: 0 });
  });

  it('disabling drops the pending deliveries in the log: each last row promising an attempt becomes failed, without a next attempt', async () => {
    const ws = await t.ctx.createWorkspace();
    const endpoint = await register(ws.secretKey);
    const other = await register(ws.secretKey, { url: 'https://hooks.example.com/other' });
    const start = Date.now() - 600_000;
    const retrying = { status: 'retry_scheduled' as const, statusCode: 500, error: 'HTTP 500' };
    // A delivery whose first retry was made (its first row settled to that time) and whose second waits.
    const settled = await insertDeliveryAttempt(endpoint, { ...retrying, scheduledAt: new Date(start), nextAttemptAt: new Date(start + 60_000) });
    const waiting = await insertDeliveryAttempt(endpoint, { ...retrying, eventId: settled.eventId, attempt: 2, scheduledAt: new Date(start + 60_000), nextAttemptAt: new Date(Date.now() + 300_000) });
    // Due already (its attempt about to find the endpoint disabled): it will not run either.
    const due = await insertDeliveryAttempt(endpoint, { ...retrying, scheduledAt: new Date(start), nextAttemptAt: new Date(start + 60_000) });
    const delivered = await insertDeliveryAttempt(endpoint);
    const elsewhere = await insertDeliveryAttempt(other, { ...retrying, nextAttemptAt: new Date(Date.now() + 300_000) });

    expect((await http(t.api.baseUrl, 'PATCH', `${BASE}/${endpoint.id}`, { key: ws.secretKey, body: { active: false } })).status).toBe(200);
    const row = async (id: string) => (await WebhookDeliveryAttempt.findByPk(id))!.toJSON();
    expect(await row(waiting.id)).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(await row(due.id)).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(await row(settled.id)).toMatchObject({ status: 'retry_scheduled', nextAttemptAt: new Date(start + 60_000) });
    expect(await row(delivered.id)).toMatchObject({ status: 'succeeded' });
    expect(await row(elsewhere.id)).toMatchObject({ status: 'retry_scheduled', nextAttemptAt: elsewhere.nextAttemptAt });
  });

  it.each([
    ['an empty body', {}],
    ['an http URL', { url: 'http://hooks.example.com/x' }],
    ['a private target', { url: 'https://192.168.1.1/x' }],
    ['an over-long description', { description: 'd'.repeat(201) }],
    ['an unknown event type', { events: ['service.product.deleted.v1'] }],
    ['an unknown field', { secret: 'whsec_x' }],
    ['a non-boolean rotateSecret', { rotateSecret: 'yes' }],
  ])('refuses %s with 400 VALIDATION_ERROR, changing nothing', async (_what, body) => {
    const ws = await t.ctx.createWorkspace();
    const endpoint = await register(ws.secretKey);
    const before = await snapshot(endpoint.id);
    expectError(await http(t.api.baseUrl, 'PATCH', `${BASE}/${endpoint.id}`, { key: ws.secretKey, body }), 400, 'VALIDATION_ERROR');
    expect(await snapshot(endpoint.id)).toEqual(before);
  });
});

describe('DELETE /v1/payment/webhook-endpoints/:id', () => {
  it('deletes the endpoint with its delivery log and audits it', async () => {
    const ws = await t.ctx.createWorkspace();
    const endpoint = await register(ws.secretKey);
    await insertDeliveryAttempt(endpoint, {
      status: 'retry_scheduled',
      statusCode: 500,
      durationMs: 12,
      error: 'HTTP 500',
      nextAttemptAt: new Date(Date.now() + 60_000),
    });
    const res = await http<{ data: unknown }>(t.api.baseUrl, 'DELETE', `${BASE}/${endpoint.id}`, { key: ws.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: endpoint.id, accountId: ws.accountId, deleted: true });
    expect(await WebhookEndpoint.count({ where: { id: endpoint.id } })).toBe(0);
    expect(await WebhookDeliveryAttempt.count({ where: { endpointId: endpoint.id } })).toBe(0);
    expectError(await http(t.api.baseUrl, 'GET', `${BASE}/${endpoint.id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expect((await AuditLog.findAll({ where: { targetId: endpoint.id }, order: [['id', 'ASC']] })).map((a) => a.action)).toEqual([
      'webhook_endpoint.created',
      'webhook_endpoint.deleted',
    ]);
  });
});

describe('system-managed endpoints', () => {
  const systemRows = (accountId: string) => WebhookEndpoint.findAll({ where: { accountId, environment: 'test' }, order: [['systemKind', 'ASC']] });

  it('lists the product mirror (inactive while DISCOUNT_SYNC_URL is unset) and adds the catalogue sync with the fulfillment module', async () => {
    const ws = await t.ctx.createWorkspace();
    const list = async () => (await http<Many>(t.api.baseUrl, 'GET', BASE, { key: ws.secretKey })).body.data;
    const initial = await list();
    expect(initial).toHaveLength(1);
    expect(initial[0]).toMatchObject({ active: false, url: 'https://product-mirror.invalid/', secret: 'whsec_***', events: ['service.product.created.v1', 'service.product.updated.v1', 'service.product.archived.v1'] });
    expect(initial[0]!.description).toMatch(/^\[outbound:product-mirror\]/);

    await http(t.api.baseUrl, 'POST', '/api/v1/modules', { key: ws.secretKey, body: { module: 'fulfillment', enabled: true } });
    const withModule = await list();
    expect(withModule.map((e) => e.description!.slice(0, 24)).sort()).toEqual(['[outbound:catalog-sync] ', '[outbound:product-mirror']);
    // Both environments are reconciled; merchant quota is untouched.
    expect(await WebhookEndpoint.count({ where: { accountId: ws.accountId, environment: 'live' } })).toBe(2);

    await http(t.api.baseUrl, 'POST', '/api/v1/modules', { key: ws.secretKey, body: { module: 'fulfillment', enabled: false } });
    expect((await list()).map((e) => e.description!.slice(0, 25))).toEqual(['[outbound:product-mirror]']);
  });

  it('points them at the configured sync URLs, active', async () => {
    const api = await t.ctx.startApi({ FULFILLMENT_SYNC_URL: 'https://partner.example.com/catalog', DISCOUNT_SYNC_URL: 'https://discounts.example.com/mirror' });
    const ws = await t.ctx.createWorkspace();
    await Account.update({ fulfillmentEnabled: true }, { where: { id: ws.accountId } });
    await http(api.baseUrl, 'GET', '/api/v1/modules', { key: ws.secretKey });
    expect((await systemRows(ws.accountId)).map((r) => [r.systemKind, r.url, r.active])).toEqual([
      ['catalog_sync', 'https://partner.example.com/catalog', true],
      ['product_mirror', 'https://discounts.example.com/mirror', true],
    ]);
  });

  it('refuses edit, rotation and delete with 409 INVALID_STATE, changing nothing, and is recreated on the next module check', async () => {
    const ws = await t.ctx.createWorkspace();
    await http(t.api.baseUrl, 'GET', '/api/v1/modules', { key: ws.secretKey });
    const [mirror] = await systemRows(ws.accountId);
    const before = await snapshot(mirror!.id);
    for (const body of [{ url: 'https://hooks.example.com/x' }, { active: true }, { rotateSecret: true }, { description: 'mine' }]) {
      expectError(await http(t.api.baseUrl, 'PATCH', `${BASE}/${mirror!.id}`, { key: ws.secretKey, body }), 409, 'INVALID_STATE');
    }
    expectError(await http(t.api.baseUrl, 'DELETE', `${BASE}/${mirror!.id}`, { key: ws.secretKey }), 409, 'INVALID_STATE');
    expect(await snapshot(mirror!.id)).toEqual(before);

    await WebhookEndpoint.destroy({ where: { id: mirror!.id } });
    await WebhookEndpoint.update({ description: 'tampered' }, { where: { accountId: ws.accountId, environment: 'live' } });
    await http(t.api.baseUrl, 'GET', '/api/v1/modules', { key: ws.secretKey });
    const again = await WebhookEndpoint.findAll({ where: { accountId: ws.accountId } });
    expect(again.map((r) => [r.environment, r.systemKind, r.description!.slice(0, 25)]).sort()).toEqual([
      ['live', 'product_mirror', '[outbound:product-mirror]'],
      ['test', 'product_mirror', '[outbound:product-mirror]'],
    ]);
  });
});

describe('deliveries log and test events (real worker, real HTTPS receiver)', () => {
  let certs: TestCertificates;
  let receiver: HttpsReceiver;
  let worker: RunningWorker;
  let api: TestApi;
  const agent = { value: undefined as ReturnType<typeof createWebhookAgent> | undefined };

  beforeAll(async () => {
    certs = await createTestCertificates();
    receiver = await startHttpsReceiver(certs);
    agent.value = createWebhookAgent({ ca: certs.caCert });
    const taskQueue = `webhook-api-${process.pid}-${Date.now()}`;
    const env = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', TEMPORAL_TASK_QUEUE: taskQueue, WEBHOOK_RETRY_SCHEDULE: '1s' };
    api = await t.ctx.startApi(env);
    worker = await startTestWorker(t.ctx.sequelize, taskQueue, { webhookAgent: agent.value, config: loadConfig({ ...process.env, ...env }) });
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    agent.value?.destroy();
  });

  it('sends a signed evt_test_ event through the delivery workflow and lists the attempts, newest first, paginated', async () => {
    const ws = await t.ctx.createWorkspace();
    const endpoint = await register(ws.secretKey, { url: receiver.url('/test-events'), events: ['checkout.completed'] }, api);
    receiver.respond((req) => (req.path === '/test-events' && receiver.received.filter((r) => r.path === '/test-events').length === 0 ? 503 : 200));

    const sent = await http<{ data: { id: string; type: string; endpointId: string } }>(api.baseUrl, 'POST', `${BASE}/${endpoint.id}/test`, { key: ws.secretKey });
    expect(sent.status).toBe(202);
    expect(sent.body.data).toMatchObject({ type: 'checkout.completed', endpointId: endpoint.id });
    expect(sent.body.data.id).toMatch(/^evt_test_[0-9A-Z]{26}$/);

    const hits = (await receiver.waitFor((r) => r.filter((x) => x.path === '/test-events').length >= 2)).filter((x) => x.path === '/test-events');
    expect(hits.map((h) => h.status)).toEqual([503, 200]);
    for (const hit of hits) {
      expect(verifyWebhookSignature(hit.rawBody, hit.headers['x-service-signature'] as string, endpoint.secret)).toMatchObject({ valid: true });
      expect(hit.headers['x-service-event-id']).toBe(sent.body.data.id);
      expect(JSON.parse(hit.rawBody)).toMatchObject({ id: sent.body.data.id, type: 'checkout.completed', accountId: ws.accountId });
    }
    expect(hits[0]!.rawBody).toBe(hits[1]!.rawBody);

    await waitFor(async () => (await WebhookDeliveryAttempt.count({ where: { endpointId: endpoint.id } })) === 2);
    const page1 = await http<{ data: Array<Record<string, unknown>>; meta: { page: { nextCursor: string } } }>(
      api.baseUrl,
      'GET',
      `${BASE}/${endpoint.id}/deliveries?limit=1`,
      { key: ws.secretKey },
    );
    expect(page1.body.data).toHaveLength(1);
    expect(page1.body.data[0]).toMatchObject({ eventId: sent.body.data.id, type: 'checkout.completed', attempt: 2, status: 'succeeded', statusCode: 200, error: null, nextAttemptAt: null });
    expect(page1.body.data[0]!.deliveryId).toBe(hits[1]!.headers['x-service-delivery-id']);
    const page2 = await http<{ data: Array<Record<string, unknown>>; meta: { page: { nextCursor: string | null } } }>(
      api.baseUrl,
      'GET',
      `${BASE}/${endpoint.id}/deliveries?limit=1&cursor=${page1.body.meta.page.nextCursor}`,
      { key: ws.secretKey },
    );
    expect(page2.body.data[0]).toMatchObject({ attempt: 1, status: 'retry_scheduled', statusCode: 503, error: 'HTTP 503', nextAttemptAt: expect.any(String) });
    expect(page2.body.data[0]!.deliveryId).toBe(hits[0]!.headers['x-service-delivery-id']);
    expect(page2.body.meta.page.nextCursor).toBeNull();
  });

  it('refuses a test event to a disabled endpoint with 409 INVALID_STATE', async () => {
    const ws = await t.ctx.createWorkspace();
    const endpoint = await register(ws.secretKey, { url: receiver.url('/disabled'), active: false }, api);
    expectError(await http(api.baseUrl, 'POST', `${BASE}/${endpoint.id}/test`, { key: ws.secretKey }), 409, 'INVALID_STATE');
    expectError(await http(api.baseUrl, 'POST', `${BASE}/${endpoint.id}/test`, { key: ws.secretKey, body: { type: 'nope' } }), 400, 'VALIDATION_ERROR');
  });
});

describe('OpenAPI', () => {
  it('documents every webhook endpoint route with its strict request schemas', async () => {
    const res = await http<{ paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, { properties?: Record<string, unknown>; additionalProperties?: unknown }> } }>(
      t.api.baseUrl,
      'GET',
      '/api/openapi.json',
    );
    const paths = res.body.paths;
    expect(Object.keys(paths['/v1/payment/webhook-endpoints']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/v1/payment/webhook-endpoints/{id}']!).sort()).toEqual(['delete', 'get', 'patch']);
    expect(Object.keys(paths['/v1/payment/webhook-endpoints/{id}/deliveries']!)).toEqual(['get']);
    expect(Object.keys(paths['/v1/payment/webhook-endpoints/{id}/test']!)).toEqual(['post']);
    const create = res.body.components.schemas.CreateWebhookEndpointBody!;
    expect(Object.keys(create.properties!).sort()).toEqual(['active', 'description', 'events', 'url']);
    expect(create.additionalProperties).toBe(false);
    expect(Object.keys(res.body.components.schemas.UpdateWebhookEndpointBody!.properties!).sort()).toEqual(['active', 'description', 'events', 'rotateSecret', 'url']);
  });
});
