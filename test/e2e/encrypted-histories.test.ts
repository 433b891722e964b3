import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { newId } from '../../lib/ids';
import { ENCRYPTED_ENCODING, KEY_ID_METADATA } from '../../lib/payload-codec';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from '../../workflows/messages';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { testDataConverter, testKeyRing } from '../helpers/temporal-codec';
import { startTestWorker, type RunningWorker } from '../helpers/worker';

type Payload = temporal.api.common.v1.IPayload;

const TOKEN = randomBytes(32).toString('hex');
const UI_ORIGIN = 'http://localhost:8233';

/**
 * Every payload of a history as the history service stores it, but those that carry no data of the application and
 * that no codec sees: search attributes (the server indexes them), headers (interceptors' context) and a local
 * activity marker's bookkeeping (`details.data`: activity type, attempt, times, written by the SDK's core).
 */
function payloadsOf(value: unknown, found: Payload[] = [], path = ''): Payload[] {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return found;
  const payload = value as Payload;
  if (payload.metadata && typeof payload.metadata === 'object' && payload.data instanceof Uint8Array) {
    if (!/markerRecordedEventAttributes\.details\.data\./.test(path)) found.push(payload);
    return found;
  }
  for (const [key, child] of Object.entries(value)) {
    if (key !== 'searchAttributes' && key !== 'header') payloadsOf(child, found, `${path}${key}.`);
  }
  return found;
}

const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('utf8');
const asJson = (p: Payload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

let ctx: TestContext;
let api: TestApi;
let worker: RunningWorker;
const taskQueue = `encrypted-histories-${randomUUID()}`;
const buyerEmail = `buyer-${randomUUID()}@example.com`;
let workflowId: string;
let history: temporal.api.history.v1.IHistory;

beforeAll(async () => {
  ctx = await createTestContext();
  api = await ctx.startApi({ CODEC_AUTH_TOKEN: TOKEN, CODEC_CORS_ORIGIN: UI_ORIGIN });
  worker = await startTestWorker(ctx.sequelize, taskQueue);

  // A tenant workflow whose input carries a buyer's e-mail: a delivery of a checkout event (to an endpoint that is gone,
  // so it ends at its first attempt), started as the service starts it, through its client.
  const eventId = newId('evt');
  const input: WebhookDeliveryInput = {
    eventId,
    eventType: 'checkout.session.completed',
    accountId: newId('acc'),
    environment: 'test',
    endpointId: newId('whe'),
    endpointEpoch: 0,
    url: 'https://hooks.example.test/commerce',
    body: JSON.stringify({ id: eventId, type: 'checkout.session.completed', data: { customerEmail: buyerEmail } }),
    retrySchedule: [60_000],
  };
  workflowId = `encrypted-history-${randomUUID()}`;
  const handle = await ctx.temporal.workflow.start('webhookDelivery', { workflowId, taskQueue, args: [input] });
  // The service's own client reads the result through the codec.
  expect(((await handle.result()) as WebhookDeliveryResult).status).toBe('stopped');

  // Read back as stored: a client of its own, without the codec.
  const raw = new Client({ connection: ctx.temporal.connection, namespace: ctx.config.TEMPORAL_NAMESPACE });
  history = await raw.workflow.getHandle(workflowId).fetchHistory();
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await ctx?.close();
});

describe('workflow histories keep no secrets (payload codec)', () => {
  it('stores only binary/encrypted payloads, each naming the current key, and no e-mail anywhere in the history', () => {
    const payloads = payloadsOf(history);
    // The workflow's input and result, and the (local) activity's result.
    expect(payloads.length).toBeGreaterThanOrEqual(3);
    for (const payload of payloads) {
      expect({ encoding: text(payload.metadata!.encoding), keyId: text(payload.metadata![KEY_ID_METADATA]) }).toEqual({
        encoding: ENCRYPTED_ENCODING,
        keyId: testKeyRing().current.id,
      });
    }
    const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
    expect(bytes.includes(buyerEmail)).toBe(false);
  });

  it('replays the encrypted history with the codec, and cannot without it', async () => {
    const workflowBundle = { codePath: process.env.WORKFLOW_BUNDLE_PATH! };
    await Worker.runReplayHistory({ workflowBundle, dataConverter: testDataConverter() }, history, workflowId);
    await expect(Worker.runReplayHistory({ workflowBundle }, history, workflowId)).rejects.toThrow();
  }, 60_000);
});

describe('codec endpoint for the Temporal Web UI (/codec)', () => {
  const started = () => history.events!.find((e) => e.workflowExecutionStartedEventAttributes)!.workflowExecutionStartedEventAttributes!.input!.payloads!;

  it('decodes with the operator token: the UI reads the input in clear', async () => {
    const res = await http<{ payloads: { metadata: Record<string, string>; data: string }[] }>(api.baseUrl, 'POST', '/codec/decode', {
      headers: { authorization: `Bearer ${TOKEN}`, 'x-namespace': 'default' },
      body: { payloads: started().map(asJson) },
    });
    expect(res.status).toBe(200);
    const [decoded] = res.body.payloads;
    expect(Buffer.from(decoded!.metadata.encoding!, 'base64').toString()).toBe('json/plain');
    expect(JSON.parse(Buffer.from(decoded!.data, 'base64').toString()).body).toContain(buyerEmail);
  });

  it('encodes for the UI too (a signal or query typed in it), and what it encodes decodes', async () => {
    const plain = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"hello"').toString('base64') };
    const encoded = await http<{ payloads: { metadata: Record<string, string>; data: string }[] }>(api.baseUrl, 'POST', '/codec/encode', {
      headers: { authorization: `Bearer ${TOKEN}` },
      body: { payloads: [plain] },
    });
    expect(Buffer.from(encoded.body.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe(ENCRYPTED_ENCODING);
    const decoded = await http<{ payloads: unknown[] }>(api.baseUrl, 'POST', '/codec/decode', { headers: { authorization: `Bearer ${TOKEN}` }, body: encoded.body });
    expect(decoded.body.payloads).toEqual([plain]);
  });

  it('refuses without the token, with a wrong one, and with the token of a bearer prefix only (401)', async () => {
    const body = { payloads: started().map(asJson) };
    for (const headers of [{}, { authorization: `Bearer ${TOKEN.slice(0, -1)}x` }, { authorization: `Bearer ${TOKEN.slice(0, 32)}` }, { authorization: TOKEN }] as Record<string, string>[]) {
      const res = await http(api.baseUrl, 'POST', '/codec/decode', { headers, body });
      expect(res.status).toBe(401);
      expect(res.text).not.toContain(buyerEmail);
    }
  });

  it('takes the token as the endpoint\'s last path segment (the dev server UI\'s form), and refuses a wrong one', async () => {
    const body = { payloads: started().map(asJson) };
    expect((await http(api.baseUrl, 'POST', `/codec/${TOKEN}/decode`, { body })).status).toBe(200);
    const wrong = `${TOKEN.slice(0, -1)}${TOKEN.endsWith('0') ? '1' : '0'}`;
    expect((await http(api.baseUrl, 'POST', `/codec/${wrong}/decode`, { body })).status).toBe(401);
  });

  it('answers the CORS preflight for the configured origin only, with credentials and X-Namespace', async () => {
    const preflight = (origin: string) =>
      fetch(`${api.baseUrl}/codec/decode`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,x-namespace' },
      });
    const allowed = await preflight(UI_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase().split(/,\s*/)).toEqual(expect.arrayContaining(['authorization', 'content-type', 'x-namespace']));
    expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');

    const other = await preflight('http://evil.example.test');
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();

    const call = await http(api.baseUrl, 'POST', '/codec/decode', { headers: { origin: UI_ORIGIN, authorization: `Bearer ${TOKEN}` }, body: { payloads: [] } });
    expect(call.status).toBe(200);
    expect(call.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
  });

  it('does not exist without CODEC_AUTH_TOKEN', async () => {
    const plainApi = await ctx.startApi();
    expect((await http(plainApi.baseUrl, 'POST', '/codec/decode', { headers: { authorization: `Bearer ${TOKEN}` }, body: { payloads: [] } })).status).toBe(404);
  });
});
