import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { QueryTypes } from 'sequelize';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { SANDBOX_TEST_VALUES, type PaymentSandbox } from '../../lib/payment-provider/sandbox';
import { subscriptionEvents } from '../fixtures/subscriptions';
import { billingApi } from '../helpers/billing-api';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver';
import { sandboxEnv, startTestSandbox } from '../helpers/payment-sandbox';
import { usePrivateDatabase } from '../helpers/private-database';
import { waitFor } from '../helpers/wait';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

/**
 * Subscriptions in provider mode (the payment module on) end to end on the dev server, on a test clock: the API in
 * this process, `worker/main.ts` as a child process, the sandbox provider on loopback. Charges go to the
 * customer's saved payment method at the provider; the sandbox's test values decide their outcome.
 */
jest.setTimeout(600_000);

usePrivateDatabase('subscription_provider');
const namespace = `subscriptions-provider-e2e-${process.pid}-${Date.now()}`;
const taskQueue = 'commerce-subscriptions-provider-e2e';
const PUBLIC_BASE_URL = 'https://shop.test';
const suiteNamespace = process.env.TEMPORAL_NAMESPACE;

let ctx: TestContext;
let api: TestApi;
let sandbox: PaymentSandbox;
let worker: WorkerProcess | undefined;
let receiver: HttpsReceiver;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  const certs = await createTestCertificates();
  receiver = await startHttpsReceiver(certs);
  const admin = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  await admin.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  await admin.close();
  process.env.TEMPORAL_NAMESPACE = namespace;
  ctx = await createTestContext();
  const env = { ...sandboxEnv(sandbox.baseUrl), TEMPORAL_NAMESPACE: namespace, TEMPORAL_TASK_QUEUE: taskQueue, PUBLIC_BASE_URL, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
  worker = await startWorkerProcess({ ...env, NODE_EXTRA_CA_CERTS: certs.caFile });
  api = await ctx.startApi(env);
  sandbox.callbackUrl = `${api.baseUrl}/api/v1/payment/provider-webhooks`;
}, 180_000);
afterAll(async () => {
  await worker?.stop();
  await ctx?.close();
  await sandbox?.close();
  await receiver?.close();
  process.env.TEMPORAL_NAMESPACE = suiteNamespace;
});

const until = <T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 90_000) =>
  waitFor(probe, { timeoutMs, intervalMs: 200, describe: () => `${what}\n--- worker output ---\n${worker?.output() ?? ''}` });

type Sub = { id: string; status: string; failedPaymentCount: number };
type Inv = { id: string; number: string; status: string; amount: number; issuedAt: string; paidAt: string | null; hostedUrl: string | null };

function billing(ws: CreatedWorkspace) {
  const base = billingApi<Sub, Inv>(api.baseUrl, ws, until);
  return {
    ...base,
    paymentMethod: (customerId: string, paymentMethodId: string) => base.call('PATCH', `/payment/customers/${customerId}`, { metadata: { paymentMethodId } }),
  };
}

/** The invoice events of a subscription, in the order written: type, invoice, status, and a failed attempt's details. */
async function invoiceEvents(subscriptionId: string) {
  const rows = await ctx.sequelize.query<{ type: string; data: Record<string, unknown> }>(
    `SELECT type, data FROM events WHERE type LIKE 'invoice.%' AND data->>'subscriptionId' = :subscriptionId ORDER BY created_at, id`,
    { type: QueryTypes.SELECT, replacements: { subscriptionId } },
  );
  return rows.map(({ type, data }) => [type, data.id, data.status, ...(data.failureCode ? [data.attemptCount, data.failureCode] : [])]);
}

const chargesOf = (invoiceId: string) => [...sandbox.paymentRequests.values()].filter((r) => String(r.reference_id).startsWith(`${invoiceId}_`));
const iso = (text: string) => new Date(text).toISOString();

/** A provider subscription on a test clock (2025-03-01) whose first charge the provider answered `pending`: past_due, its invoice open. */
async function pendingFirstCharge() {
  const ws = await ctx.createWorkspace({ plan: 'pro' });
  const b = billing(ws);
  const clock = await b.call<{ id: string }>('POST', '/payment/test-clocks', { frozenTime: '2025-03-01T00:00:00Z' }, 201);
  expect((await http(api.baseUrl, 'POST', '/api/v1/modules', { key: ws.secretKey, body: { module: 'payment', enabled: true } })).status).toBe(200);
  const plan = await b.call<{ id: string }>('POST', '/payment/plans', { name: 'Basic', amount: 100_000, currency: 'IDR', interval: 'monthly' }, 201);
  const customer = await b.call<{ id: string }>('POST', '/payment/customers', { name: 'Later', testClock: clock.id, metadata: { paymentMethodId: SANDBOX_TEST_VALUES.paymentMethods.pending } }, 201);
  const sub = await b.subscribe({ customerId: customer.id, planId: plan.id });
  await until(async () => (await b.sub(sub.id)).status === 'past_due', 'past_due while the first charge is pending');
  const [invoice] = await b.invoices(sub.id);
  return { b, clock, customer, sub, invoice: invoice! };
}

describe('subscriptions in provider mode (API, worker process, dev server, sandbox provider)', () => {
  it('charges the saved method at once; a decline goes past_due and the retry charges the replaced method and recovers; a local subscription stays local', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const b = billing(ws);
    const clock = await b.call<{ id: string }>('POST', '/payment/test-clocks', { frozenTime: '2025-01-01T00:00:00Z' }, 201);
    const plan = await b.call<{ id: string }>('POST', '/payment/plans', { name: 'Basic', amount: 100_000, currency: 'IDR', interval: 'monthly' }, 201);

    // Started before the module was switched on: it stays on the local backend (its invoices paid on the hosted
    // page), also for the first charge, which its trial puts after the switch.
    const localCustomer = await b.call<{ id: string }>('POST', '/payment/customers', { email: 'local@example.com', name: 'Local', testClock: clock.id }, 201);
    const local = await b.subscribe({ customerId: localCustomer.id, planId: plan.id, trialDays: 10 });

    expect((await http(api.baseUrl, 'POST', '/api/v1/modules', { key: ws.secretKey, body: { module: 'payment', enabled: true } })).status).toBe(200);
    // A provider customer without an e-mail, its saved method in its metadata.
    const customer = await b.call<{ id: string }>('POST', '/payment/customers', { name: 'Ada', testClock: clock.id, metadata: { paymentMethodId: SANDBOX_TEST_VALUES.paymentMethods.success } }, 201);
    expect(customer.id).toMatch(/^cus_/);
    const sub = await b.subscribe({ customerId: customer.id, planId: plan.id });
    await until(async () => (await subscriptionEvents(ctx.sequelize, sub.id)).length >= 2 && true, 'the first charge');
    const [first] = await b.invoices(sub.id);
    expect(first).toMatchObject({ status: 'paid', amount: 100_000, paidAt: iso('2025-01-01T00:00:00Z'), hostedUrl: null });
    expect(chargesOf(first!.id).map((c) => [c.status, c.amount, c.currency])).toEqual([['SUCCEEDED', 100_000, 'IDR']]);

    await b.paymentMethod(customer.id, SANDBOX_TEST_VALUES.paymentMethods.declined);
    await b.advance(clock.id, '2025-02-01T06:00:00Z');
    expect(await b.sub(sub.id)).toMatchObject({ status: 'past_due', failedPaymentCount: 1 });
    const renewal = (await b.invoices(sub.id))[1]!;
    expect(renewal).toMatchObject({ status: 'open', issuedAt: iso('2025-02-01T00:00:00Z') });
    expect(chargesOf(renewal.id).map((c) => [c.status, c.failure_code])).toEqual([['FAILED', 'CARD_DECLINED']]);

    // The customer replaces the method; the first retry (T+1d) charges it.
    await b.paymentMethod(customer.id, SANDBOX_TEST_VALUES.paymentMethods.success);
    await b.advance(clock.id, '2025-02-02T06:00:00Z');
    expect(await b.sub(sub.id)).toMatchObject({ status: 'active', failedPaymentCount: 0 });
    expect((await b.invoices(sub.id))[1]).toMatchObject({ status: 'paid', paidAt: iso('2025-02-02T00:00:00Z') });
    expect(chargesOf(renewal.id).map((c) => c.status).sort()).toEqual(['FAILED', 'SUCCEEDED']);

    expect((await subscriptionEvents(ctx.sequelize, sub.id)).map((e) => [e.type, e.status, e.attemptCount])).toEqual([
      ['subscription.created', 'active', undefined],
      ['subscription.payment_succeeded', 'active', undefined],
      ['subscription.payment_failed', 'past_due', 1],
      ['subscription.past_due', 'past_due', undefined],
      ['subscription.renewed', 'active', undefined],
      ['subscription.payment_succeeded', 'active', undefined],
    ]);
    expect(await invoiceEvents(sub.id)).toEqual([
      ['invoice.created', first!.id, 'open'],
      ['invoice.finalized', first!.id, 'open'],
      ['invoice.paid', first!.id, 'paid'],
      ['invoice.created', renewal.id, 'open'],
      ['invoice.finalized', renewal.id, 'open'],
      ['invoice.payment_failed', renewal.id, 'open', 1, 'CARD_DECLINED'],
      ['invoice.paid', renewal.id, 'paid'],
    ]);

    // The local subscription: collected on hosted pages, never at the provider, and no invoice events.
    const localInvoices = await b.invoices(local.id);
    expect(localInvoices.length).toBeGreaterThan(0);
    for (const invoice of localInvoices) {
      expect(invoice.hostedUrl).toMatch(/^https:\/\/shop\.test\/checkout\/cs_/);
      expect(chargesOf(invoice.id)).toEqual([]);
      // Its session is paid the local way (pay, then the merchant's confirm), whatever the switch says now.
      const [session] = await ctx.sequelize.query<{ backend: string }>('SELECT backend FROM checkout_sessions WHERE id = :id', {
        type: QueryTypes.SELECT,
        replacements: { id: invoice.hostedUrl!.split('/').pop() },
      });
      expect(session).toEqual({ backend: 'local' });
    }
    expect(await invoiceEvents(local.id)).toEqual([]);
  });

  it('a charge that confirms later is asked about at each retry, never made twice: pending, still pending, then paid by that one charge', async () => {
    const { b, clock, customer, sub, invoice } = await pendingFirstCharge();
    expect(chargesOf(invoice.id).map((c) => c.status)).toEqual(['PENDING']);

    // First retry (T+1d): the charge is still pending; it is asked about, not made again, even with another method.
    await b.paymentMethod(customer.id, SANDBOX_TEST_VALUES.paymentMethods.success);
    await b.advance(clock.id, '2025-03-02T06:00:00Z');
    expect(await b.sub(sub.id)).toMatchObject({ status: 'past_due', failedPaymentCount: 2 });
    expect(chargesOf(invoice.id)).toHaveLength(1);

    // The bank confirms it; the second retry (T+3d) finds it succeeded and the invoice is paid by it.
    const [pending] = chargesOf(invoice.id);
    sandbox.settlePaymentRequest(String(pending!.id), 'SUCCEEDED');
    await b.advance(clock.id, '2025-03-04T06:00:00Z');
    expect(await b.sub(sub.id)).toMatchObject({ status: 'active', failedPaymentCount: 0 });
    expect((await b.invoices(sub.id))[0]).toMatchObject({ status: 'paid', paidAt: iso('2025-03-04T00:00:00Z') });
    expect(chargesOf(invoice.id).map((c) => c.status)).toEqual(['SUCCEEDED']);
    expect(await invoiceEvents(sub.id)).toEqual([
      ['invoice.created', invoice.id, 'open'],
      ['invoice.finalized', invoice.id, 'open'],
      ['invoice.payment_failed', invoice.id, 'open', 1, 'payment_pending'],
      ['invoice.payment_failed', invoice.id, 'open', 2, 'payment_pending'],
      ['invoice.paid', invoice.id, 'paid'],
    ]);
  });

  it('a pending charge the provider no longer knows took no money: the next retry charges anew', async () => {
    const { b, clock, customer, sub, invoice } = await pendingFirstCharge();
    const [lost] = chargesOf(invoice.id);
    sandbox.paymentRequests.delete(String(lost!.id));

    await b.paymentMethod(customer.id, SANDBOX_TEST_VALUES.paymentMethods.success);
    await b.advance(clock.id, '2025-03-02T06:00:00Z');
    expect(await b.sub(sub.id)).toMatchObject({ status: 'active', failedPaymentCount: 0 });
    expect((await b.invoices(sub.id))[0]).toMatchObject({ status: 'paid' });
    expect(chargesOf(invoice.id).map((c) => [c.reference_id, c.status])).toEqual([[`${invoice.id}_2`, 'SUCCEEDED']]);
  });

  it('a canceled provider subscription voids its open invoice with invoice.void', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const b = billing(ws);
    expect((await http(api.baseUrl, 'POST', '/api/v1/modules', { key: ws.secretKey, body: { module: 'payment', enabled: true } })).status).toBe(200);
    const plan = await b.call<{ id: string }>('POST', '/payment/plans', { name: 'Basic', amount: 100_000, currency: 'IDR', interval: 'monthly' }, 201);
    const customer = await b.call<{ id: string }>('POST', '/payment/customers', { name: 'No method yet' }, 201);
    const sub = await b.subscribe({ customerId: customer.id, planId: plan.id });
    await until(async () => (await b.sub(sub.id)).status === 'past_due', 'past_due without a payment method');
    const [invoice] = await b.invoices(sub.id);
    await b.call('DELETE', `/payment/subscriptions/${sub.id}?immediate=true`);
    expect((await b.invoices(sub.id))[0]).toMatchObject({ status: 'void' });
    expect(await invoiceEvents(sub.id)).toEqual([
      ['invoice.created', invoice!.id, 'open'],
      ['invoice.finalized', invoice!.id, 'open'],
      ['invoice.payment_failed', invoice!.id, 'open', 1, 'no_payment_method'],
      ['invoice.void', invoice!.id, 'void'],
    ]);
  });

  it('routes the provider-mode events to the workspace’s webhook endpoint: customer.created and the invoice’s events', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const b = billing(ws);
    await b.call('POST', '/payment/webhook-endpoints', { url: receiver.url('/provider-events') }, 201);
    expect((await http(api.baseUrl, 'POST', '/api/v1/modules', { key: ws.secretKey, body: { module: 'payment', enabled: true } })).status).toBe(200);
    const plan = await b.call<{ id: string }>('POST', '/payment/plans', { name: 'Basic', amount: 100_000, currency: 'IDR', interval: 'monthly' }, 201);
    const customer = await b.call<{ id: string }>('POST', '/payment/customers', { name: 'Ada', metadata: { paymentMethodId: SANDBOX_TEST_VALUES.paymentMethods.success } }, 201);
    const sub = await b.subscribe({ customerId: customer.id, planId: plan.id });
    const [invoice] = await until(async () => {
      const list = await b.invoices(sub.id);
      return list[0]?.status === 'paid' && list;
    }, 'the first invoice paid');
    const expected = [
      ['customer.created', customer.id],
      ['invoice.created', invoice!.id],
      ['invoice.finalized', invoice!.id],
      ['invoice.paid', invoice!.id],
    ];
    const delivered = () =>
      receiver.received
        .filter((r) => r.path === '/provider-events')
        .map((r) => JSON.parse(r.rawBody) as { type: string; accountId: string; data: { id: string } })
        .filter((e) => e.accountId === ws.accountId && (e.type.startsWith('customer.') || e.type.startsWith('invoice.')))
        .map((e) => [e.type, e.data.id]);
    await until(async () => delivered().length >= expected.length, 'the provider-mode events delivered');
    expect(delivered().sort()).toEqual(expected.sort());
  });
});
