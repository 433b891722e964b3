import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { CheckoutSession, Product } from '../../db/models';
import { CommerceError, createCommerceClient, verifyWebhookSignature, type CommerceClient } from '../../sdk/src';
import { useTestApi } from '../helpers/context';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type TestCertificates } from '../helpers/https-receiver';
import { startLossyProxy, type LossyProxy } from '../helpers/lossy-proxy';
import { usePrivateDatabase } from '../helpers/private-database';
import { waitFor } from '../helpers/wait';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

/**
 * A merchant's journey through the SDK against the real API: the app on a real port over the suite's PostgreSQL
 * (a database of this file's own, since the worker's outbox relay takes every event it can see) and a
 * `worker/main.ts` process that runs the checkout's fulfillment and delivers its webhook to a real HTTPS receiver.
 * API and worker share a Temporal namespace of their own (so the worker's schedules meet no other file's) and a
 * task queue, as in production.
 */
jest.setTimeout(180_000);

usePrivateDatabase('sdk_journey');
const namespace = `sdk-journey-${process.pid}-${Date.now()}`;
const taskQueue = 'commerce-sdk-journey';
const sharedNamespace = process.env.TEMPORAL_NAMESPACE;
beforeAll(async () => {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
  try {
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  } finally {
    await connection.close();
  }
  // The API's Temporal client (the test context's) is built from the environment when the next beforeAll runs.
  process.env.TEMPORAL_NAMESPACE = namespace;
});
afterAll(() => {
  process.env.TEMPORAL_NAMESPACE = sharedNamespace;
});
const t = useTestApi({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', TEMPORAL_TASK_QUEUE: taskQueue });

let certs: TestCertificates;
let receiver: HttpsReceiver;
let worker: WorkerProcess | undefined;
let proxy: LossyProxy;
let workspace: { accountId: string; secretKey: string };
let sdk: CommerceClient;

beforeAll(async () => {
  certs = await createTestCertificates();
  receiver = await startHttpsReceiver(certs);
  proxy = await startLossyProxy(t.api.baseUrl);
  worker = await startWorkerProcess({
    NODE_EXTRA_CA_CERTS: certs.caFile,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '2s,2s,2s',
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_TASK_QUEUE: taskQueue,
  });
  workspace = await t.ctx.createWorkspace({ plan: 'pro' });
  sdk = createCommerceClient({ baseUrl: t.api.baseUrl, secretKey: workspace.secretKey, accountId: workspace.accountId });
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await proxy?.close();
});

const productBody = (name: string, price = 25) => ({ name, price, currency: 'USD' as const, type: 'digital' as const, published: true });

async function refusal(promise: Promise<unknown>): Promise<CommerceError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof CommerceError)) throw new Error(`expected a CommerceError, got ${String(err)}`);
  return err;
}

describe('a merchant journey through the SDK', () => {
  let endpoint: { id: string; secret: string };
  let productId: string;
  let sessionId: string;

  it('registers a webhook endpoint for checkout.completed', async () => {
    const created = await sdk.post('/v1/payment/webhook-endpoints', { body: { url: receiver.url('/journey'), events: ['checkout.completed'], description: 'SDK journey' } });
    expect(created).toMatchObject({ accountId: workspace.accountId, url: receiver.url('/journey'), events: ['checkout.completed'], active: true });
    expect(created.secret).toMatch(/^whsec_/);
    endpoint = created;
  });

  it('creates a product with its price', async () => {
    const product = await sdk.post('/v1/storefront/products', { body: productBody('Field notes') });
    expect(product).toMatchObject({ id: expect.stringMatching(/^prod_[0-9A-Z]{26}$/), accountId: workspace.accountId, name: 'Field notes', price: 25, currency: 'USD', published: true });
    productId = product.id;
  });

  it('lists the products page by page over cursors', async () => {
    for (const name of ['Sketchbook', 'Brush set', 'Palette', 'Easel']) await sdk.post('/v1/storefront/products', { body: productBody(name, 10) });

    const pages: string[][] = [];
    for await (const page of sdk.pages('/v1/storefront/products', { query: { limit: 2 } })) pages.push(page.data.map((p) => p.name));
    expect(pages).toEqual([['Easel', 'Palette'], ['Brush set', 'Sketchbook'], ['Field notes']]);

    const names: string[] = [];
    for await (const product of sdk.list('/v1/storefront/products', { query: { limit: 2, published: 'true' } })) names.push(product.name);
    expect(names).toEqual(['Easel', 'Palette', 'Brush set', 'Sketchbook', 'Field notes']);
  });

  it('sells it: a checkout session, paid by the buyer, confirmed by the merchant, read back completed', async () => {
    const session = await sdk.post('/v1/payment/checkout-sessions', {
      body: { productId, amount: 2_500, currency: 'USD', description: 'Field notes', customerEmail: 'buyer@example.com', paymentMethods: ['va', 'qris'] },
    });
    expect(session).toMatchObject({ status: 'open', amount: 2_500, lineItems: [expect.objectContaining({ productId, quantity: 1, amount: 2_500 })] });
    sessionId = session.id;

    // The buyer's side needs no key: a client without one pays (local mode, ARCHITECTURE.md).
    const buyer = createCommerceClient({ baseUrl: t.api.baseUrl });
    const paid = await buyer.post('/v1/payment/checkout-sessions/{id}/pay', { params: { path: { id: sessionId } }, body: { paymentMethod: 'va' } });
    expect(paid).toMatchObject({ status: 'pending_review', checkoutSession: { status: 'pending_review' } });

    const confirmed = await sdk.post('/v1/payment/checkout-sessions/{id}/confirm', { params: { path: { id: sessionId } } });
    expect(confirmed).toMatchObject({ id: sessionId, status: 'completed', paymentMethod: 'va' });

    const read = await sdk.get('/v1/payment/checkout-sessions/{id}', { params: { path: { id: sessionId } } });
    expect(read).toMatchObject({ id: sessionId, status: 'completed', completedAt: expect.any(String) });
  });

  it('receives the signed checkout.completed delivery, which the SDK’s verifier accepts', async () => {
    const hits = () => receiver.received.filter((r) => r.path === '/journey');
    await waitFor(async () => hits().length > 0, {
      timeoutMs: 90_000,
      intervalMs: 200,
      describe: () => `the checkout.completed delivery\n--- worker ---\n${worker?.output() ?? ''}`,
    });
    const [hit] = hits();
    const event = JSON.parse(hit!.rawBody) as { id: string; type: string; accountId: string; data: { id: string; status: string } };
    expect(event).toMatchObject({ type: 'checkout.completed', accountId: workspace.accountId, data: { id: sessionId, status: 'completed' } });

    const signature = hit!.headers['x-service-signature'] as string;
    expect(verifyWebhookSignature(hit!.rawBody, signature, endpoint.secret)).toEqual({ valid: true, timestamp: expect.any(Number) });
    expect(verifyWebhookSignature(hit!.rawBody.replace(sessionId, `${sessionId}x`), signature, endpoint.secret)).toEqual({ valid: false, reason: 'signature_mismatch' });
    expect(verifyWebhookSignature(hit!.rawBody, signature, 'whsec_another')).toEqual({ valid: false, reason: 'signature_mismatch' });
  });

  it('throws refusals typed by their code: 404 RESOURCE_NOT_FOUND, 400 VALIDATION_ERROR with its details', async () => {
    const missing = await refusal(sdk.get('/v1/storefront/products/{id}', { params: { path: { id: 'prod_01JD4X7V1QZ8N6Y3K2M5P9R0TS' } } }));
    expect(missing).toMatchObject({ name: 'CommerceError', status: 404, code: 'RESOURCE_NOT_FOUND', requestId: expect.stringMatching(/^req_[0-9A-Z]{26}$/) });
    expect(CommerceError.is(missing, 'RESOURCE_NOT_FOUND')).toBe(true);

    const before = await Product.count({ where: { accountId: workspace.accountId } });
    const invalid = await refusal(sdk.post('/v1/storefront/products', { body: { ...productBody('Free?'), price: -1 } }));
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', requestId: expect.stringMatching(/^req_/) });
    expect(JSON.stringify(invalid.details)).toContain('price');
    expect(await Product.count({ where: { accountId: workspace.accountId } })).toBe(before);
  });

  it('creates once when the first answer is lost: the SDK retries under the same Idempotency-Key and gets the replay', async () => {
    const answers: Response[] = [];
    const throughProxy = createCommerceClient({
      baseUrl: proxy.baseUrl,
      secretKey: workspace.secretKey,
      retry: { baseDelayMs: 50 },
      fetch: async (request) => {
        const response = await fetch(request);
        answers.push(response);
        return response;
      },
    });
    proxy.loseNextAnswer('POST', '/api/v1/storefront/products');
    const product = await throughProxy.post('/v1/storefront/products', { body: productBody('Lost answer') });

    expect(proxy.lost).toBe(1);
    expect(answers.map((a) => [a.status, a.headers.get('idempotent-replayed')])).toEqual([[201, 'true']]);
    expect(await Product.count({ where: { accountId: workspace.accountId, name: 'Lost answer' } })).toBe(1);
    expect((await Product.findOne({ where: { accountId: workspace.accountId, name: 'Lost answer' } }))!.id).toBe(product.id);
  });

  it('replays a call repeated with the caller’s own key: the same object, one row', async () => {
    const body = { productId, amount: 2_500, currency: 'USD' as const, description: 'Field notes again', customerEmail: 'buyer@example.com' };
    const headers = { 'Idempotency-Key': `journey-${Date.now()}` };
    const first = await sdk.post('/v1/payment/checkout-sessions', { body, headers });
    const again = await sdk.post('/v1/payment/checkout-sessions', { body, headers });
    expect(again).toEqual(first);
    expect(await CheckoutSession.count({ where: { accountId: workspace.accountId, description: 'Field notes again' } })).toBe(1);
  });
});
