import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { msToTs } from '@temporalio/common/lib/time';
import type { Browser, Page } from 'playwright-core';
import { CheckoutSession, Delivery } from '../../db/models';
import type { PaymentSandbox } from '../../lib/payment-provider/sandbox';
import { SANDBOX_TEST_VALUES } from '../../lib/payment-provider/sandbox';
import { freePort } from '../../scripts/lib/free-port';
import { insertCartProduct } from '../fixtures/cart';
import { createTestContext, http, type TestContext } from '../helpers/context';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type TestCertificates } from '../helpers/https-receiver';
import { sandboxEnv, startTestSandbox } from '../helpers/payment-sandbox';
import { usePrivateDatabase } from '../helpers/private-database';
import { waitFor } from '../helpers/wait';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { launchChromium } from '../helpers/chromium';

/**
 * The buyer's whole journey in provider mode over real sockets: the API (`api/main.ts`) and the worker
 * (`worker/main.ts`) as child processes in a namespace and on a database of this file's own, the sandbox provider
 * and an HTTPS webhook receiver on loopback, and the buyer in Debian's Chromium: storefront buy-now, our hosted page,
 * the provider's page (a decline, then a payment), the provider's callback, fulfillment, and the merchant's
 * `checkout.completed` and `product.purchased` webhooks. Screenshots land in test-artifacts/provider-checkout/.
 */
jest.setTimeout(300_000);

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/provider-checkout');

usePrivateDatabase('provider_checkout_e2e');
const namespace = `provider-checkout-e2e-${process.pid}-${Date.now()}`;
const taskQueue = 'commerce-provider-checkout-e2e';

let ctx: TestContext;
let certs: TestCertificates;
let receiver: HttpsReceiver;
let sandbox: PaymentSandbox;
let worker: WorkerProcess | undefined;
let api: WorkerProcess | undefined;
let apiUrl: string;
let browser: Browser;
const problems: string[] = [];


beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  ctx = await createTestContext();
  certs = await createTestCertificates();
  receiver = await startHttpsReceiver(certs);
  // The provider retries a callback that found no answer (our API between restarts, or a commit not yet visible).
  sandbox = await startTestSandbox({ callbackRetryDelaysMs: [500, 1_000, 2_000, 5_000] });
  await ctx.temporal.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  const port = await freePort();
  apiUrl = `http://127.0.0.1:${port}`;
  sandbox.callbackUrl = `${apiUrl}/api/v1/payment/provider-webhooks`;
  const env = {
    ...sandboxEnv(sandbox.baseUrl),
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_TASK_QUEUE: taskQueue,
    NODE_EXTRA_CA_CERTS: certs.caFile,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    PUBLIC_BASE_URL: apiUrl,
    PUBLIC_RATE_LIMIT_PER_MINUTE: '100000',
  };
  worker = await startWorkerProcess(env);
  api = await startWorkerProcess({ ...env, PORT: String(port) }, { script: 'api/main.ts', startedMessage: 'api listening' });
  browser = await launchChromium('the provider checkout browser tests');
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await api?.stop();
  await worker?.stop();
  await sandbox?.close();
  await receiver?.close();
  await ctx?.close();
});

/** waitFor with both processes' output in the failure, which is what explains a stuck journey. */
const until = <T>(probe: () => Promise<T | undefined | false>, what: string) =>
  waitFor(probe, { timeoutMs: 90_000, intervalMs: 250, describe: () => `${what}\n--- api ---\n${api?.output() ?? ''}\n--- worker ---\n${worker?.output() ?? ''}` });

async function newPage(): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 820, height: 1000 } })).newPage();
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  return page;
}

describe('provider-mode buyer journey (API and worker processes, sandbox provider, Chromium, HTTPS webhooks)', () => {
  it('buy-now → our page → the provider page (declined, then paid) → callback → fulfillment → checkout.completed and product.purchased', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const live = { accountId: ws.accountId, environment: 'live' as const };
    const modules = await http(apiUrl, 'POST', '/api/v1/modules', { key: ws.liveSecretKey, body: { module: 'payment', enabled: true } });
    expect(modules.status).toBe(200);
    const endpoint = await http<{ data: { id: string } }>(apiUrl, 'POST', '/api/v1/payment/webhook-endpoints', {
      key: ws.liveSecretKey,
      body: { url: receiver.url('/orders'), events: ['checkout.completed', 'product.purchased'] },
    });
    expect(endpoint.status).toBe(201);
    const product = await insertCartProduct(live, { name: 'Route Planner Pro', slug: 'route-planner', price: 49, currency: 'USD', licenseEnabled: true });

    // The storefront's buy-now: the session and its provider invoice, hostedUrl on the provider's page.
    const buy = await http<{ data: { checkoutSessionId: string; hostedUrl: string } }>(apiUrl, 'POST', `/api/v1/storefront/public/${ws.slug!}/route-planner/checkout`, {
      body: { email: 'buyer@example.com', name: 'Ada Buyer', metadata: { campaign: 'e2e' } },
    });
    expect(buy.status).toBe(201);
    const { checkoutSessionId: id, hostedUrl } = buy.body.data;
    expect(hostedUrl).toMatch(new RegExp(`^${sandbox.baseUrl}/web/`));
    // The buyer route `pay` answers the same provider page.
    const pay = await http<{ data: { status: string; redirectUrl: string } }>(apiUrl, 'POST', `/api/v1/payment/checkout-sessions/${id}/pay`, { body: { paymentMethod: 'card' } });
    expect(pay.body.data).toEqual(expect.objectContaining({ status: 'open', redirectUrl: hostedUrl }));

    // Our hosted page: its pay button takes the buyer on to the provider's page.
    const page = await newPage();
    await page.goto(`${apiUrl}/checkout/${id}`);
    await page.getByRole('radio', { name: 'Card', exact: true }).check();
    await Promise.all([page.waitForURL(`${sandbox.baseUrl}/web/**`), page.getByRole('button', { name: /^Pay/ }).click()]);
    expect(page.url()).toBe(hostedUrl);
    await page.screenshot({ path: path.join(ARTIFACTS, '1-provider-page.png'), fullPage: true });

    // A declined card: the provider page says so, the session stays open.
    await page.selectOption('#channel', 'CREDIT_CARD');
    await page.fill('#card_number', SANDBOX_TEST_VALUES.cards.declined);
    await page.click('#pay');
    await expect(page.locator('#failure').innerText()).resolves.toContain('CARD_DECLINED');
    await page.screenshot({ path: path.join(ARTIFACTS, '2-declined.png'), fullPage: true });
    expect((await CheckoutSession.findByPk(id))!.status).toBe('open');

    // Paid: the provider sends the buyer back to our page, and its callback completes the session.
    await page.selectOption('#channel', 'CREDIT_CARD');
    await page.fill('#card_number', SANDBOX_TEST_VALUES.cards.success);
    await Promise.all([page.waitForURL(`${apiUrl}/checkout/${id}`), page.click('#pay')]);
    const completed = await until(async () => {
      const row = await CheckoutSession.findByPk(id);
      return row?.status === 'completed' && row;
    }, 'the paid callback to complete the session');
    expect(completed.paymentMethod).toBe('card');

    const delivery = await until(async () => (await Delivery.findOne({ where: { checkoutSessionId: id } })) ?? false, 'fulfillment to write the delivery');
    expect(delivery.kind).toBe('license');
    await until(async () => {
      await page.reload();
      return (await page.locator('h1').textContent())?.includes('Payment received') ?? false;
    }, 'the receipt on our page');
    await expect(page.locator('code.license-key').innerText()).resolves.toBe(delivery.licenseKey);
    await page.screenshot({ path: path.join(ARTIFACTS, '3-receipt.png'), fullPage: true });

    const hits = await receiver.waitFor((r) => r.filter((x) => x.path === '/orders').length >= 2, 90_000);
    const events = hits.filter((x) => x.path === '/orders').map((x) => JSON.parse(x.rawBody) as { type: string; data: Record<string, unknown> });
    expect(events.map((e) => e.type).sort()).toEqual(['checkout.completed', 'product.purchased']);
    const completedEvent = events.find((e) => e.type === 'checkout.completed')!;
    expect(completedEvent.data).toMatchObject({ id, status: 'completed', paymentMethod: 'card', hostedUrl });
    expect(events.find((e) => e.type === 'product.purchased')!.data).toMatchObject({ productId: product.id, deliveryId: delivery.id, licenseKey: delivery.licenseKey });

    // The provider's callback again (its retry of an answer it lost): nothing changes, nothing is fulfilled twice.
    const paid = sandbox.callbacks.find((c) => c.body.external_id === id && c.body.status === 'PAID')!;
    expect(await sandbox.deliver(paid.webhookId)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await Delivery.count({ where: { checkoutSessionId: id } })).toBe(1);
    expect(receiver.received.filter((x) => x.path === '/orders')).toHaveLength(2);
    expect(problems).toEqual([]);
  });
});
