import { randomUUID } from 'node:crypto';
import { createWebhookActivities } from '../../activities/webhooks';
import type { AttemptInput } from '../../workflows/messages';
import { AuditLog, WebhookDeliveryAttempt, WebhookEndpoint } from '../../db/models';
import { loadConfig, requireEncryptionKey } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import { newId } from '../../lib/ids';
import { generateWebhookSecret, verifyWebhookSignature } from '../../lib/webhooks/signature';
import { createWebhookAgent } from '../../lib/webhooks/send';
import { insertWebhookEndpoint, type WebhookEndpointOverrides } from '../fixtures/webhooks';
import { createTestContext, type TestContext } from '../helpers/context';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver';
import { testActivityDeps } from '../helpers/worker';

/** The attempt activity called directly (it needs no activity context), against real PostgreSQL and a real HTTPS receiver. */
let ctx: TestContext;
let receiver: HttpsReceiver;
let agent: ReturnType<typeof createWebhookAgent>;
let activities: ReturnType<typeof createWebhookActivities>;
let strict: ReturnType<typeof createWebhookActivities>;
const config = loadConfig({ ...process.env, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
const box = createCryptoBox(requireEncryptionKey(config));

beforeAll(async () => {
  ctx = await createTestContext();
  const certs = await createTestCertificates();
  receiver = await startHttpsReceiver(certs);
  agent = createWebhookAgent({ ca: certs.caCert });
  activities = createWebhookActivities(testActivityDeps(ctx.sequelize, { config, webhookAgent: agent }));
  // As in production: private targets refused.
  strict = createWebhookActivities(testActivityDeps(ctx.sequelize, { config: loadConfig(process.env), webhookAgent: agent }));
});
afterAll(async () => {
  await receiver.close();
  agent.destroy();
  await ctx.close();
});

let paths = 0;
async function endpoint(overrides: WebhookEndpointOverrides = {}) {
  paths += 1;
  const { row, secret } = await insertWebhookEndpoint(await ctx.createWorkspace(), { url: receiver.url(`/activity-${paths}`), ...overrides });
  return { row, secret, path: new URL(row.url).pathname };
}

function attempt(row: WebhookEndpoint, overrides: Partial<AttemptInput> = {}): AttemptInput {
  const eventId = newId('evt');
  return {
    eventId,
    eventType: 'checkout.completed',
    accountId: row.accountId,
    environment: row.environment,
    endpointId: row.id,
    endpointEpoch: row.deliveryEpoch,
    url: row.url,
    body: JSON.stringify({ id: eventId, type: 'checkout.completed', createdAt: new Date().toISOString(), accountId: row.accountId, data: {} }),
    attempt: 1,
    attemptKey: randomUUID(),
    retryDelayMs: 60_000,
    ...overrides,
  };
}

const hits = (path: string) => receiver.received.filter((r) => r.path === path);

describe('deliverWebhookAttempt', () => {
  it('counts concurrent failures one by one and disables the endpoint exactly once at 20', async () => {
    const { row, path } = await endpoint();
    receiver.respond(() => 500);
    const first = await Promise.all(Array.from({ length: 15 }, () => activities.deliverWebhookAttempt(attempt(row))));
    expect(first.map((r) => r.outcome)).toEqual(Array(15).fill('failed'));
    expect((await WebhookEndpoint.findByPk(row.id))!.consecutiveFailures).toBe(15);
    expect(await WebhookDeliveryAttempt.count({ where: { endpointId: row.id } })).toBe(15);

    const second = await Promise.all(Array.from({ length: 10 }, () => activities.deliverWebhookAttempt(attempt(row))));
    const after = (await WebhookEndpoint.findByPk(row.id))!;
    expect(after.toJSON()).toMatchObject({ active: false, deliveryEpoch: 1 });
    // Attempts already past their pre-send check when the 20th landed still count; none after it starts.
    expect(after.consecutiveFailures).toBe(await WebhookDeliveryAttempt.count({ where: { endpointId: row.id } }));
    expect(after.consecutiveFailures).toBeGreaterThanOrEqual(20);
    expect(hits(path)).toHaveLength(after.consecutiveFailures);
    // Failures 16 to 19 leave it active; the 20th and any later one report the endpoint disabled.
    expect(second.filter((r) => r.outcome === 'failed')).toHaveLength(4);
    expect(second.filter((r) => r.outcome === 'endpoint_disabled')).toHaveLength(6);
    expect(await AuditLog.count({ where: { targetId: row.id, action: 'webhook_endpoint.disabled' } })).toBe(1);
    // Every delivery was waiting for a retry; disabling dropped them all, so no row still promises one.
    expect(await WebhookDeliveryAttempt.count({ where: { endpointId: row.id, status: 'retry_scheduled' } })).toBe(0);
  });

  it('resets the failure count on success', async () => {
    const { row } = await endpoint();
    receiver.respond(() => 200);
    await WebhookEndpoint.update({ consecutiveFailures: 5 }, { where: { id: row.id } });
    const result = await activities.deliverWebhookAttempt(attempt(row));
    expect(result).toEqual({ outcome: 'succeeded', statusCode: 200 });
    expect((await WebhookEndpoint.findByPk(row.id))!.consecutiveFailures).toBe(0);
  });

  it('is idempotent per attempt key: a second run answers from the log without sending', async () => {
    const { row, path } = await endpoint();
    receiver.respond(() => 200);
    const input = attempt(row);
    expect((await activities.deliverWebhookAttempt(input)).outcome).toBe('succeeded');
    expect((await activities.deliverWebhookAttempt(input)).outcome).toBe('succeeded');
    expect(hits(path)).toHaveLength(1);
    const logged = await WebhookDeliveryAttempt.findAll({ where: { attemptKey: input.attemptKey } });
    expect(logged).toHaveLength(1);
    // The log shows the delivery id the recorded send carried, which is not the attempt key.
    expect(logged[0]!.deliveryId).toBe(hits(path)[0]!.headers['x-service-delivery-id']);
    expect(logged[0]!.deliveryId).not.toBe(input.attemptKey);
  });

  it('sends nothing to a deleted, disabled or re-epoched endpoint, or across workspaces', async () => {
    receiver.respond(() => 200);
    const gone = await endpoint();
    const input = attempt(gone.row);
    await gone.row.destroy();
    expect(await activities.deliverWebhookAttempt(input)).toEqual({ outcome: 'endpoint_gone', statusCode: null });

    const inactive = await endpoint({ active: false });
    expect((await activities.deliverWebhookAttempt(attempt(inactive.row))).outcome).toBe('endpoint_disabled');

    const bumped = await endpoint({ deliveryEpoch: 3 });
    expect((await activities.deliverWebhookAttempt(attempt(bumped.row, { endpointEpoch: 2 }))).outcome).toBe('endpoint_disabled');

    const foreign = await endpoint();
    const other = await ctx.createWorkspace();
    expect((await activities.deliverWebhookAttempt(attempt(foreign.row, { accountId: other.accountId }))).outcome).toBe('endpoint_gone');
    expect((await activities.deliverWebhookAttempt(attempt(foreign.row, { environment: 'live' }))).outcome).toBe('endpoint_gone');

    for (const e of [gone, inactive, bumped, foreign]) expect(hits(e.path)).toHaveLength(0);
  });

  it('signs with the secret current at send time', async () => {
    const { row, path } = await endpoint();
    receiver.respond(() => 200);
    const rotated = generateWebhookSecret();
    await WebhookEndpoint.update({ secretSealed: box.seal(rotated) }, { where: { id: row.id } });
    await activities.deliverWebhookAttempt(attempt(row));
    const [hit] = hits(path);
    expect(verifyWebhookSignature(hit!.rawBody, hit!.headers['x-service-signature'] as string, rotated)).toMatchObject({ valid: true });
  });

  it('refuses a target that resolves privately at send time (DNS rebinding), logging the refusal as a failed attempt', async () => {
    const { row, path } = await endpoint();
    // Registered while it resolved publicly; now the name points at loopback.
    await WebhookEndpoint.update({ url: `https://localhost:${receiver.port}${path}` }, { where: { id: row.id } });
    const result = await strict.deliverWebhookAttempt(attempt(row, { url: `https://localhost:${receiver.port}${path}` }));
    expect(result.outcome).toBe('failed');
    expect(hits(path)).toHaveLength(0);
    const [logged] = await WebhookDeliveryAttempt.findAll({ where: { endpointId: row.id } });
    expect(logged!.toJSON()).toMatchObject({ status: 'retry_scheduled', statusCode: null, error: expect.stringMatching(/^refused: localhost resolves to/) });
  });

  it('lets the service’s own endpoints reach operator-configured private targets', async () => {
    const { row, path } = await endpoint({ systemKind: 'product_mirror' });
    receiver.respond(() => 200);
    expect((await strict.deliverWebhookAttempt(attempt(row))).outcome).toBe('succeeded');
    expect(hits(path)).toHaveLength(1);
  });

  it('never lets a merchant send reuse a kept-alive socket that a system endpoint opened to a private target', async () => {
    receiver.respond(() => 200);
    const system = await endpoint({ systemKind: 'product_mirror' });
    const systemUrl = `https://localhost:${receiver.port}${system.path}`;
    await WebhookEndpoint.update({ url: systemUrl }, { where: { id: system.row.id } });
    expect((await strict.deliverWebhookAttempt(attempt(system.row, { url: systemUrl }))).outcome).toBe('succeeded');

    const merchant = await endpoint();
    const merchantUrl = `https://localhost:${receiver.port}${merchant.path}`;
    await WebhookEndpoint.update({ url: merchantUrl }, { where: { id: merchant.row.id } });
    expect((await strict.deliverWebhookAttempt(attempt(merchant.row, { url: merchantUrl }))).outcome).toBe('failed');
    expect(hits(merchant.path)).toHaveLength(0);
  });

  it('marks the last attempt failed with no next attempt', async () => {
    const { row } = await endpoint();
    receiver.respond(() => 502);
    await activities.deliverWebhookAttempt(attempt(row, { attempt: 7, retryDelayMs: null }));
    const [logged] = await WebhookDeliveryAttempt.findAll({ where: { endpointId: row.id } });
    expect(logged!.toJSON()).toMatchObject({ attempt: 7, status: 'failed', statusCode: 502, error: 'HTTP 502', nextAttemptAt: null });
  });
});
