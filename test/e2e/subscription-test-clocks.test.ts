import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { Subscription } from '../../db/models';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { workflowIds } from '../../workflows/messages';
import { subscriptionEvents, type SubscriptionEvent } from '../fixtures/subscriptions';
import { billingApi } from '../helpers/billing-api';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { usePrivateDatabase } from '../helpers/private-database';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtp-server';
import { waitFor } from '../helpers/wait';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

/**
 * Subscription journeys through the API on test clocks (ARCHITECTURE.md), end to end on the dev server: the API in
 * this process, `worker/main.ts` (worker, start relay, outbox relay) as a child process, an SMTP server, on a
 * database and a namespace of this file's own. Each advance must leave the clock `advancing` until every step due
 * up to its time has run, in order, for every subscription on it.
 */
jest.setTimeout(600_000);

usePrivateDatabase('subscription_clocks');
const namespace = `subscriptions-e2e-${process.pid}-${Date.now()}`;
const taskQueue = 'commerce-subscriptions-e2e';
const PUBLIC_BASE_URL = 'https://shop.test';
const suiteNamespace = process.env.TEMPORAL_NAMESPACE;

let ctx: TestContext;
let api: TestApi;
let smtp: TestSmtpServer;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  const admin = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  await admin.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  await admin.close();
  process.env.TEMPORAL_NAMESPACE = namespace;
  ctx = await createTestContext();
  worker = await startWorkerProcess({
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_TASK_QUEUE: taskQueue,
    SMTP_URL: smtp.url,
    PUBLIC_BASE_URL,
  });
  api = await ctx.startApi({ TEMPORAL_NAMESPACE: namespace, TEMPORAL_TASK_QUEUE: taskQueue, PUBLIC_BASE_URL });
}, 180_000);
afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await ctx?.close();
  process.env.TEMPORAL_NAMESPACE = suiteNamespace;
});

const until = <T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 90_000) =>
  waitFor(probe, { timeoutMs, intervalMs: 200, describe: () => `${what}\n--- worker output ---\n${worker?.output() ?? ''}` });

type Sub = { id: string; status: string; currentPeriodStart: string; currentPeriodEnd: string; trialEnd: string | null; canceledAt: string | null; failedPaymentCount: number; latestInvoiceId: string | null; cancelAtPeriodEnd: boolean };
type Inv = { id: string; number: string; status: string; amount: number; issuedAt: string; dueAt: string | null; paidAt: string | null; voidedAt: string | null; hostedUrl: string | null; lineItems: { description: string; amount: number }[]; periodStart: string | null };

/** A workspace's billing calls through the API, with its secret key. */
function billing(ws: CreatedWorkspace) {
  const base = billingApi<Sub, Inv>(api.baseUrl, ws, until);
  const { call } = base;
  return {
    ...base,
    clock: (frozenTime: string) => call<{ id: string }>('POST', '/payment/test-clocks', { frozenTime }, 201),
    plan: (body: Record<string, unknown>) => call<{ id: string }>('POST', '/payment/plans', { currency: 'IDR', interval: 'monthly', ...body }, 201),
    customer: (clockId: string) => call<{ id: string; email: string }>('POST', '/payment/customers', { email: `buyer-${clockId.toLowerCase()}-${Date.now()}@example.com`, name: 'Ada Buyer', testClock: clockId }, 201),
    /** The buyer pays on the invoice's hosted page (local mode) and the merchant confirms the transfer. */
    async pay(invoice: Inv): Promise<void> {
      const sessionId = invoice.hostedUrl!.split('/').at(-1)!;
      const paid = await http(api.baseUrl, 'POST', `/api/v1/payment/checkout-sessions/${sessionId}/pay`, { body: { paymentMethod: 'va' } });
      expect(paid.status).toBe(200);
      await call('POST', `/payment/checkout-sessions/${sessionId}/confirm`);
    },
  };
}

/** The latest run's history, for the replay test (RECORD_HISTORIES=1). */
async function recordHistory(workflowId: string, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const history = await ctx.temporal.workflow.getHandle(workflowId).fetchHistory();
  await writeFile(path.join(__dirname, '../replay/histories', `${name}.json`), JSON.stringify(history, null, 2));
}

const events = (subscriptionId: string) => subscriptionEvents(ctx.sequelize, subscriptionId);
const untilEvent = (subscriptionId: string, count: number) =>
  until(async () => {
    const list = await events(subscriptionId);
    return list.length >= count && list;
  }, `${count} events of ${subscriptionId}`);
const iso = (text: string) => new Date(text).toISOString();

describe('subscriptions on test clocks (API, worker process, dev server)', () => {
  it('plays a trial end and a month of renewals on the clock’s time, each invoice paid on its hosted page', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const b = billing(ws);
    const clock = await b.clock('2025-01-31T00:00:00Z');
    const plan = await b.plan({ name: 'Basic', amount: 100_000, trialDays: 7 });
    const customer = await b.customer(clock.id);
    const sub = await b.subscribe({ customerId: customer.id, planId: plan.id });
    expect(sub).toMatchObject({ status: 'trialing', trialEnd: iso('2025-02-07T00:00:00Z'), currentPeriodEnd: iso('2025-02-07T00:00:00Z') });

    await b.advance(clock.id, '2025-02-07T12:00:00Z');
    expect(await b.sub(sub.id)).toMatchObject({ status: 'active', currentPeriodStart: iso('2025-02-07T00:00:00Z'), currentPeriodEnd: iso('2025-03-07T00:00:00Z') });
    const [first] = await b.invoices(sub.id);
    expect(first).toMatchObject({ status: 'open', amount: 100_000, issuedAt: iso('2025-02-07T00:00:00Z'), dueAt: iso('2025-02-08T00:00:00Z'), hostedUrl: expect.stringMatching(/^https:\/\/shop\.test\/checkout\/cs_/) });
    await b.pay(first!);
    await untilEvent(sub.id, 2);
    expect((await b.invoices(sub.id))[0]).toMatchObject({ status: 'paid', paidAt: iso('2025-02-07T12:00:00Z') });

    for (const [advanceTo, periodStart] of [
      ['2025-03-07T06:00:00Z', '2025-03-07T00:00:00Z'],
      ['2025-04-07T06:00:00Z', '2025-04-07T00:00:00Z'],
    ] as const) {
      await b.advance(clock.id, advanceTo);
      const renewal = (await b.invoices(sub.id)).at(-1)!;
      expect(renewal).toMatchObject({ status: 'open', issuedAt: iso(periodStart), periodStart: iso(periodStart) });
      await b.pay(renewal);
    }
    await untilEvent(sub.id, 6);
    expect((await events(sub.id)).map((e) => e.type)).toEqual([
      'subscription.created',
      'subscription.payment_succeeded',
      'subscription.renewed',
      'subscription.payment_succeeded',
      'subscription.renewed',
      'subscription.payment_succeeded',
    ]);
    expect(await b.sub(sub.id)).toMatchObject({ status: 'active', currentPeriodEnd: iso('2025-05-07T00:00:00Z'), failedPaymentCount: 0 });
  });

  it('plays a whole dunning run in one advance: past_due, three failed retries, unpaid, canceled; ready only after; the customer e-mailed each time', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const b = billing(ws);
    const clock = await b.clock('2025-01-01T00:00:00Z');
    const plan = await b.plan({ name: 'Basic', amount: 100_000 });
    const customer = await b.customer(clock.id);
    const sub = await b.subscribe({ customerId: customer.id, planId: plan.id });
    await b.pay((await b.invoices(sub.id))[0]!);
    await untilEvent(sub.id, 2);

    await b.advance(clock.id, '2025-02-10T00:00:00Z');
    // Renewal 02-01, due 02-02 (T), retries T+1d, T+3d, T+7d = 02-09: everything ran before the clock was ready.
    expect(await b.sub(sub.id)).toMatchObject({ status: 'canceled', canceledAt: iso('2025-02-09T00:00:00Z'), failedPaymentCount: 4 });
    const renewal = (await b.invoices(sub.id))[1]!;
    expect(renewal).toMatchObject({ issuedAt: iso('2025-02-01T00:00:00Z'), status: 'void', voidedAt: iso('2025-02-09T00:00:00Z') });
    const expected: SubscriptionEvent[] = [
      { type: 'subscription.created', status: 'active' },
      { type: 'subscription.payment_succeeded', status: 'active', invoiceId: expect.any(String) },
      { type: 'subscription.payment_failed', status: 'past_due', attemptCount: 1, invoiceId: renewal.id },
      { type: 'subscription.past_due', status: 'past_due', invoiceId: renewal.id },
      { type: 'subscription.payment_failed', status: 'past_due', attemptCount: 2, invoiceId: renewal.id },
      { type: 'subscription.payment_failed', status: 'past_due', attemptCount: 3, invoiceId: renewal.id },
      { type: 'subscription.payment_failed', status: 'unpaid', attemptCount: 4, invoiceId: renewal.id },
      { type: 'subscription.canceled', status: 'canceled' },
    ];
    expect(await events(sub.id)).toEqual(expected);
    const { status } = await ctx.temporal.workflow.getHandle(workflowIds.subscription(sub.id)).describe();
    expect(status.name).toBe('COMPLETED');
    await recordHistory(workflowIds.subscription(sub.id), 'subscription-test-clock-dunning');
    await recordHistory(workflowIds.testClock(clock.id), 'test-clock-advance');

    // Four reminders, each with the invoice's payment link, the last saying no further check follows.
    const reminders = await until(async () => {
      const mails = smtp.received.filter((m) => m.envelope.to.includes(customer.email) && m.parsed.subject?.includes(renewal.number));
      return mails.length >= 4 && mails;
    }, 'four payment reminders');
    expect(reminders).toHaveLength(4);
    for (const mail of reminders) expect(mail.parsed.text).toContain(renewal.hostedUrl!);
    expect(reminders.map((m) => /check for the payment again on (\S+)\./.exec(m.parsed.text ?? '')?.[1] ?? 'last').sort()).toEqual(['2025-02-03', '2025-02-05', '2025-02-09', 'last']);
  });

  it('a payment between retries makes it active again; later advances count no more failures', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const b = billing(ws);
    const clock = await b.clock('2025-01-01T00:00:00Z');
    const plan = await b.plan({ name: 'Basic', amount: 100_000 });
    const sub = await b.subscribe({ customerId: (await b.customer(clock.id)).id, planId: plan.id });
    await b.pay((await b.invoices(sub.id))[0]!);
    await untilEvent(sub.id, 2);
    await b.advance(clock.id, '2025-02-03T12:00:00Z');
    expect(await b.sub(sub.id)).toMatchObject({ status: 'past_due', failedPaymentCount: 2 });
    await b.pay((await b.invoices(sub.id))[1]!);
    await until(async () => (await b.sub(sub.id)).status === 'active', 'active after paying');
    await b.advance(clock.id, '2025-02-20T00:00:00Z');
    expect(await b.sub(sub.id)).toMatchObject({ status: 'active', failedPaymentCount: 0 });
    expect((await events(sub.id)).slice(2).map((e) => [e.type, e.attemptCount])).toEqual([
      ['subscription.payment_failed', 1],
      ['subscription.past_due', undefined],
      ['subscription.payment_failed', 2],
      ['subscription.renewed', undefined],
      ['subscription.payment_succeeded', undefined],
    ]);
  });

  it('pause skips exactly one renewal and resume bills the next; a deferred cancel executes at the period end, an immediate one at the clock’s time', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const b = billing(ws);
    const clock = await b.clock('2025-01-01T00:00:00Z');
    const plan = await b.plan({ name: 'Basic', amount: 100_000 });
    const customer = await b.customer(clock.id);
    const paused = await b.subscribe({ customerId: customer.id, planId: plan.id });
    const deferred = await b.subscribe({ customerId: customer.id, planId: plan.id });
    const immediate = await b.subscribe({ customerId: customer.id, planId: plan.id });
    for (const sub of [paused, deferred]) await b.pay((await b.invoices(sub.id))[0]!);
    await untilEvent(deferred.id, 2);
    await b.advance(clock.id, '2025-01-01T08:00:00Z');
    expect(await b.call('DELETE', `/payment/subscriptions/${immediate.id}?immediate=true`)).toMatchObject({ status: 'canceled', canceledAt: iso('2025-01-01T08:00:00Z') });
    expect((await b.invoices(immediate.id))[0]).toMatchObject({ status: 'void', voidedAt: iso('2025-01-01T08:00:00Z') });

    await b.advance(clock.id, '2025-01-10T00:00:00Z');
    expect(await b.call('PATCH', `/payment/subscriptions/${paused.id}`, { status: 'paused' })).toMatchObject({ status: 'paused', pausedAt: iso('2025-01-10T00:00:00Z') });
    expect(await b.call('DELETE', `/payment/subscriptions/${deferred.id}`)).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });

    await b.advance(clock.id, '2025-02-01T06:00:00Z');
    expect(await b.sub(paused.id)).toMatchObject({ status: 'paused', currentPeriodStart: iso('2025-02-01T00:00:00Z') });
    expect(await b.invoices(paused.id)).toHaveLength(1);
    expect(await b.sub(deferred.id)).toMatchObject({ status: 'canceled', canceledAt: iso('2025-02-01T00:00:00Z') });
    expect(await b.invoices(deferred.id)).toHaveLength(1);
    expect((await events(deferred.id)).at(-1)).toEqual({ type: 'subscription.canceled', status: 'canceled' });

    expect(await b.call('PATCH', `/payment/subscriptions/${paused.id}`, { status: 'active' })).toMatchObject({ status: 'active', pausedAt: null });
    await b.advance(clock.id, '2025-03-01T06:00:00Z');
    const invoices = await b.invoices(paused.id);
    expect(invoices.map((i) => i.issuedAt)).toEqual([iso('2025-01-01T00:00:00Z'), iso('2025-03-01T00:00:00Z')]);
  });

  it('prorates a plan switch against the current period at the clock’s time, shown as invoice lines', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const b = billing(ws);
    const clock = await b.clock('2025-01-01T00:00:00Z');
    const basic = await b.plan({ name: 'Basic', amount: 100_000 });
    const premium = await b.plan({ name: 'Premium', amount: 300_000 });
    const sub = await b.subscribe({ customerId: (await b.customer(clock.id)).id, planId: basic.id });
    await b.pay((await b.invoices(sub.id))[0]!);
    await untilEvent(sub.id, 2);
    await b.advance(clock.id, '2025-01-11T00:00:00Z');
    await b.call('PATCH', `/payment/subscriptions/${sub.id}`, { planId: premium.id });
    // 21 of January's 31 days left: 100,000 × 21/31 = 67,741.9 → 67,742 credited; 300,000 × 21/31 = 203,225.8 → 203,226 charged.
    const proration = (await b.invoices(sub.id))[1]!;
    expect(proration.lineItems).toEqual([
      { description: 'Unused time on Basic (2025-01-11 to 2025-02-01)', quantity: 1, unitAmount: -67_742, amount: -67_742 },
      { description: 'Remaining time on Premium (2025-01-11 to 2025-02-01)', quantity: 1, unitAmount: 203_226, amount: 203_226 },
    ]);
    expect(proration).toMatchObject({ status: 'open', amount: 135_484, issuedAt: iso('2025-01-11T00:00:00Z'), dueAt: iso('2025-01-12T00:00:00Z') });
    await b.pay(proration);
    await untilEvent(sub.id, 3);
    await b.advance(clock.id, '2025-02-01T01:00:00Z');
    expect((await b.invoices(sub.id))[2]).toMatchObject({ amount: 300_000, issuedAt: iso('2025-02-01T00:00:00Z') });
  });

  it('sets a clock with many subscriptions ready only once every one of them has renewed', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const b = billing(ws);
    const clock = await b.clock('2025-06-01T00:00:00Z');
    const plan = await b.plan({ name: 'Weekly', amount: 10_000, interval: 'weekly' });
    const customer = await b.customer(clock.id);
    const subs: Sub[] = [];
    for (let i = 0; i < 8; i += 1) subs.push(await b.subscribe({ customerId: customer.id, planId: plan.id }));
    for (const sub of subs) await b.pay((await b.invoices(sub.id))[0]!);
    await until(async () => (await Subscription.count({ where: { accountId: ws.accountId, failedPaymentCount: 0 } })) === 8 && (await Promise.all(subs.map((s) => events(s.id)))).every((e) => e.length === 2), 'first payments');

    await b.advance(clock.id, '2025-06-08T01:00:00Z');
    for (const sub of subs) {
      expect(await b.sub(sub.id)).toMatchObject({ currentPeriodStart: iso('2025-06-08T00:00:00Z') });
      expect(await b.invoices(sub.id)).toHaveLength(2);
    }
  });
});
