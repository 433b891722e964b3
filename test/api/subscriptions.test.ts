import { QueryTypes } from 'sequelize';
import { CheckoutSession, Invoice, Subscription, SubscriptionCharge, TestClock } from '../../db/models';
import { periodEnd } from '../../domain/subscriptions/periods';
import { newId } from '../../lib/ids';
import { insertBillingCustomer, insertPlan, insertSubscriptionRow, subscriptionEvents } from '../fixtures/subscriptions';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';

// Workflows started by these requests go to a task queue no worker polls: this file tests the requests' rules.
const t = useTestApi({ TEMPORAL_TASK_QUEUE: `subscriptions-api-${process.pid}` });
const SUBS = '/api/v1/payment/subscriptions';
const DAY = 86_400_000;

type SubscriptionDto = {
  id: string;
  accountId: string;
  customerId: string;
  planId: string;
  status: string;
  currentPeriodStart: string;
  currentPeriodEnd: string;
  trialEnd: string | null;
  cancelAtPeriodEnd: boolean;
  canceledAt: string | null;
  pausedAt: string | null;
  failedPaymentCount: number;
  latestInvoiceId: string | null;
  testClock: string | null;
  metadata: Record<string, string>;
  createdAt: string;
  updatedAt: string;
};
type Page = { data: SubscriptionDto[]; meta: { page: { nextCursor: string | null } } };

let keyCounter = 0;
const idem = () => ({ 'idempotency-key': `sub-test-${process.pid}-${++keyCounter}` });

/** Every row a subscription request can write, counted for the workspace. */
async function written(accountId: string): Promise<Record<string, number>> {
  const [row] = await t.ctx.sequelize.query<Record<string, number>>(
    `SELECT (SELECT count(*)::int FROM subscriptions WHERE account_id = :accountId) AS subscriptions,
            (SELECT count(*)::int FROM invoices WHERE account_id = :accountId) AS invoices,
            (SELECT count(*)::int FROM subscription_charges WHERE account_id = :accountId) AS charges,
            (SELECT count(*)::int FROM checkout_sessions WHERE account_id = :accountId) AS sessions,
            (SELECT count(*)::int FROM events WHERE account_id = :accountId) AS events,
            (SELECT count(*)::int FROM workflow_starts WHERE account_id = :accountId) AS starts`,
    { type: QueryTypes.SELECT, replacements: { accountId } },
  );
  return row!;
}

async function setup(plan: 'free' | 'pro' = 'pro') {
  const ws = await t.ctx.createWorkspace({ plan });
  const basic = await insertPlan(ws, { name: 'Basic', amount: 100_000, trialDays: 14 });
  const customer = await insertBillingCustomer(ws);
  return { ws, basic, customer };
}

async function create(key: string, body: Record<string, unknown>) {
  const res = await http<{ data: SubscriptionDto }>(t.api.baseUrl, 'POST', SUBS, { key, body, headers: idem() });
  expect(res.status).toBe(201);
  return res.body.data;
}

describe('POST /v1/payment/subscriptions', () => {
  it('starts a subscription without a trial active, with its first period invoiced open on a checkout session, created event and workflow start', async () => {
    const { ws, basic, customer } = await setup();
    const before = Date.now();
    const sub = await create(ws.secretKey, { customerId: customer.id, planId: basic.id, trialDays: 0, metadata: { seat: 'a' } });
    expect(sub).toEqual({
      id: expect.stringMatching(/^sub_[0-9A-Z]{26}$/),
      accountId: ws.accountId,
      customerId: customer.id,
      planId: basic.id,
      status: 'active',
      currentPeriodStart: expect.any(String),
      currentPeriodEnd: expect.any(String),
      trialEnd: null,
      cancelAtPeriodEnd: false,
      canceledAt: null,
      pausedAt: null,
      failedPaymentCount: 0,
      latestInvoiceId: expect.stringMatching(/^inv_/),
      testClock: null,
      metadata: { seat: 'a' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const start = new Date(sub.currentPeriodStart).getTime();
    expect(start).toBeGreaterThanOrEqual(before - 1000);
    expect(sub.currentPeriodEnd).toBe(periodEnd(new Date(start), { interval: 'monthly', intervalCount: 1 }, 0).toISOString());

    const invoice = (await Invoice.findByPk(sub.latestInvoiceId!))!;
    expect(invoice).toMatchObject({ subscriptionId: sub.id, customerId: customer.id, status: 'open', amount: 100_000, currency: 'IDR', dueAt: new Date(start + DAY) });
    const read = await http<{ data: { hostedUrl: string } }>(t.api.baseUrl, 'GET', `/api/v1/payment/invoices/${invoice.id}`, { key: ws.secretKey });
    expect(read.body.data.hostedUrl).toBe(`${t.ctx.config.PUBLIC_BASE_URL}/checkout/${invoice.checkoutSessionId}`);
    expect(await SubscriptionCharge.findByPk(invoice.id)).toMatchObject({ reason: 'subscription_create', state: 'pending' });
    expect(await subscriptionEvents(t.ctx.sequelize, sub.id)).toEqual([{ type: 'subscription.created', status: 'active' }]);
    const starts = await t.ctx.sequelize.query<{ workflow_type: string; workflow_id: string }>(`SELECT workflow_type, workflow_id FROM workflow_starts WHERE account_id = :accountId ORDER BY workflow_type`, {
      type: QueryTypes.SELECT,
      replacements: { accountId: ws.accountId },
    });
    expect(starts).toEqual([
      { workflow_type: 'checkoutSession', workflow_id: `checkout-session:${invoice.checkoutSessionId}` },
      { workflow_type: 'subscription', workflow_id: `subscription:${sub.id}` },
    ]);
  });

  it('trials for the plan’s trialDays, or for the body’s trialDays, which override it; no invoice during the trial', async () => {
    const { ws, basic, customer } = await setup();
    const planTrial = await create(ws.secretKey, { customerId: customer.id, planId: basic.id });
    expect(planTrial).toMatchObject({ status: 'trialing', latestInvoiceId: null, currentPeriodEnd: planTrial.trialEnd });
    expect(new Date(planTrial.trialEnd!).getTime() - new Date(planTrial.currentPeriodStart).getTime()).toBe(14 * DAY);
    const bodyTrial = await create(ws.secretKey, { customerId: customer.id, planId: basic.id, trialDays: 3 });
    expect(new Date(bodyTrial.trialEnd!).getTime() - new Date(bodyTrial.currentPeriodStart).getTime()).toBe(3 * DAY);
    expect(await Invoice.count({ where: { accountId: ws.accountId } })).toBe(0);
    expect((await subscriptionEvents(t.ctx.sequelize, bodyTrial.id)).map((e) => e.status)).toEqual(['trialing']);
  });

  it('requires an Idempotency-Key (400 VALIDATION_ERROR, nothing written) and replays a retried create once', async () => {
    const { ws, basic, customer } = await setup();
    const body = { customerId: customer.id, planId: basic.id };
    const res = await http(t.api.baseUrl, 'POST', SUBS, { key: ws.secretKey, body });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect((res.body.error as { details: unknown }).details).toEqual([{ field: 'Idempotency-Key', message: 'required' }]);
    expect(await written(ws.accountId)).toEqual({ subscriptions: 0, invoices: 0, charges: 0, sessions: 0, events: 0, starts: 0 });

    const headers = idem();
    const first = await http<{ data: SubscriptionDto }>(t.api.baseUrl, 'POST', SUBS, { key: ws.secretKey, body, headers });
    const again = await http<{ data: SubscriptionDto }>(t.api.baseUrl, 'POST', SUBS, { key: ws.secretKey, body, headers });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    expectError(await http(t.api.baseUrl, 'POST', SUBS, { key: ws.secretKey, body: { ...body, trialDays: 1 }, headers }), 409, 'IDEMPOTENCY_KEY_REUSED');
    expect(await Subscription.count({ where: { accountId: ws.accountId } })).toBe(1);
  });

  it.each([
    ['no customerId', (_c: string, p: string) => ({ planId: p })],
    ['no planId', (c: string) => ({ customerId: c })],
    ['a customerId that is not a customer id', (_c: string, p: string) => ({ customerId: 'prod_01JD4X7V1QZ8N6Y3K2M5P9R0TS', planId: p })],
    ['a planId that is not a plan id', (c: string) => ({ customerId: c, planId: 'price_1' })],
    ['negative trialDays', (c: string, p: string) => ({ customerId: c, planId: p, trialDays: -1 })],
    ['trialDays over 730', (c: string, p: string) => ({ customerId: c, planId: p, trialDays: 731 })],
    ['fractional trialDays', (c: string, p: string) => ({ customerId: c, planId: p, trialDays: 1.5 })],
    ['51 metadata entries', (c: string, p: string) => ({ customerId: c, planId: p, metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) })],
    ['a non-string metadata value', (c: string, p: string) => ({ customerId: c, planId: p, metadata: { n: 1 } })],
    ['an unknown field', (c: string, p: string) => ({ customerId: c, planId: p, status: 'active' })],
  ])('refuses %s with 400 VALIDATION_ERROR and writes nothing', async (_case, bodyOf) => {
    const { ws, basic, customer } = await setup();
    const body: Record<string, unknown> = bodyOf(customer.id, basic.id);
    expectError(await http(t.api.baseUrl, 'POST', SUBS, { key: ws.secretKey, body, headers: idem() }), 400, 'VALIDATION_ERROR');
    expect(await written(ws.accountId)).toEqual({ subscriptions: 0, invoices: 0, charges: 0, sessions: 0, events: 0, starts: 0 });
  });

  it('refuses a local (cust_) customer while the payment module is on with 400 VALIDATION_ERROR: the provider could never charge it', async () => {
    const { ws, basic, customer } = await setup();
    expect((await http(t.api.baseUrl, 'POST', '/api/v1/modules', { key: ws.secretKey, body: { module: 'payment', enabled: true } })).status).toBe(200);
    expectError(await http(t.api.baseUrl, 'POST', SUBS, { key: ws.secretKey, body: { customerId: customer.id, planId: basic.id }, headers: idem() }), 400, 'VALIDATION_ERROR');
    expect(await written(ws.accountId)).toEqual({ subscriptions: 0, invoices: 0, charges: 0, sessions: 0, events: 0, starts: 0 });
  });

  it('answers 404 RESOURCE_NOT_FOUND for a customer or plan of another workspace or environment, and writes nothing', async () => {
    const { ws, basic, customer } = await setup();
    const other = await setup();
    const liveCustomer = await insertBillingCustomer({ accountId: ws.accountId, environment: 'live' });
    for (const body of [
      { customerId: other.customer.id, planId: basic.id },
      { customerId: liveCustomer.id, planId: basic.id },
      { customerId: customer.id, planId: other.basic.id },
      { customerId: `cust_${newId('cust').slice(5)}`, planId: basic.id },
    ]) {
      expectError(await http(t.api.baseUrl, 'POST', SUBS, { key: ws.secretKey, body, headers: idem() }), 404, 'RESOURCE_NOT_FOUND');
    }
    expect(await written(ws.accountId)).toEqual({ subscriptions: 0, invoices: 0, charges: 0, sessions: 0, events: 0, starts: 0 });
  });

  it('refuses an archived plan and a plan in a currency local mode cannot collect with 400 VALIDATION_ERROR', async () => {
    const { ws, customer } = await setup();
    const archived = await insertPlan(ws, { active: false });
    const euro = await insertPlan(ws, { currency: 'EUR' });
    for (const plan of [archived, euro]) {
      const res = await http(t.api.baseUrl, 'POST', SUBS, { key: ws.secretKey, body: { customerId: customer.id, planId: plan.id }, headers: idem() });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect((res.body.error as { details: { field: string }[] }).details[0]!.field).toBe('planId');
    }
    expect(await written(ws.accountId)).toEqual({ subscriptions: 0, invoices: 0, charges: 0, sessions: 0, events: 0, starts: 0 });
  });

  it('caps subscriptions by plan (free: 50 not canceled) with 403 QUOTA_EXCEEDED; a canceled one frees its slot', async () => {
    const { ws, basic, customer } = await setup('free');
    const rows = [];
    for (let i = 0; i < 50; i += 1) rows.push(await insertSubscriptionRow(ws, { customerId: customer.id, planId: basic.id }));
    const before = await written(ws.accountId);
    expectError(await http(t.api.baseUrl, 'POST', SUBS, { key: ws.secretKey, body: { customerId: customer.id, planId: basic.id }, headers: idem() }), 403, 'QUOTA_EXCEEDED');
    expect(await written(ws.accountId)).toEqual(before);
    await rows[0]!.update({ status: 'canceled', canceledAt: new Date() });
    await create(ws.secretKey, { customerId: customer.id, planId: basic.id });
  });

  it('starts on the customer’s test clock time; refuses 409 INVALID_STATE while the clock is advancing or once it is deleted', async () => {
    const { ws, basic } = await setup();
    const clock = await TestClock.create({ id: newId('clock'), accountId: ws.accountId, environment: 'test', frozenTime: new Date('2025-01-31T10:00:00Z') });
    const customer = await insertBillingCustomer(ws, { testClockId: clock.id });
    const sub = await create(ws.secretKey, { customerId: customer.id, planId: basic.id, trialDays: 0 });
    expect(sub).toMatchObject({ testClock: clock.id, currentPeriodStart: '2025-01-31T10:00:00.000Z', currentPeriodEnd: '2025-02-28T10:00:00.000Z' });
    expect((await Invoice.findByPk(sub.latestInvoiceId!))!.issuedAt.toISOString()).toBe('2025-01-31T10:00:00.000Z');

    await clock.update({ status: 'advancing' });
    const before = await written(ws.accountId);
    expectError(await http(t.api.baseUrl, 'POST', SUBS, { key: ws.secretKey, body: { customerId: customer.id, planId: basic.id }, headers: idem() }), 409, 'INVALID_STATE');
    // A PATCH that moves the subscription in time is refused too; its metadata can change.
    expectError(await http(t.api.baseUrl, 'PATCH', `${SUBS}/${sub.id}`, { key: ws.secretKey, body: { status: 'paused' } }), 409, 'INVALID_STATE');
    expectError(await http(t.api.baseUrl, 'DELETE', `${SUBS}/${sub.id}`, { key: ws.secretKey }), 409, 'INVALID_STATE');
    expect(await written(ws.accountId)).toEqual(before);
    expect((await http(t.api.baseUrl, 'PATCH', `${SUBS}/${sub.id}`, { key: ws.secretKey, body: { metadata: { a: 'b' } } })).status).toBe(200);
    // A deleted clock no longer moves: no new subscription on it.
    await clock.update({ status: 'ready', deletedAt: new Date() });
    expectError(await http(t.api.baseUrl, 'POST', SUBS, { key: ws.secretKey, body: { customerId: customer.id, planId: basic.id }, headers: idem() }), 409, 'INVALID_STATE');
    expect(await written(ws.accountId)).toEqual(before);
  });
});

describe('GET /v1/payment/subscriptions', () => {
  it('lists newest first in cursor pages, filtered by status and customerId; an unknown status is 400', async () => {
    const { ws, basic, customer } = await setup();
    const other = await insertBillingCustomer(ws);
    const a = await insertSubscriptionRow(ws, { customerId: customer.id, planId: basic.id });
    const b = await insertSubscriptionRow(ws, { customerId: other.id, planId: basic.id }, { status: 'past_due' });
    const c = await insertSubscriptionRow(ws, { customerId: customer.id, planId: basic.id }, { status: 'paused' });
    const list = async (query: string) => (await http<Page>(t.api.baseUrl, 'GET', `${SUBS}${query}`, { key: ws.secretKey })).body;

    const first = await list('?limit=2');
    expect(first.data.map((s) => s.id)).toEqual([c.id, b.id]);
    const second = await list(`?limit=2&cursor=${first.meta.page.nextCursor}`);
    expect(second.data.map((s) => s.id)).toEqual([a.id]);
    expect(second.meta.page.nextCursor).toBeNull();
    expect((await list('?status=past_due')).data.map((s) => s.id)).toEqual([b.id]);
    expect((await list(`?customerId=${customer.id}`)).data.map((s) => s.id)).toEqual([c.id, a.id]);
    expect((await list(`?customerId=${customer.id}&status=active`)).data.map((s) => s.id)).toEqual([a.id]);
    for (const status of ['active', 'trialing', 'past_due', 'paused', 'canceled', 'unpaid']) {
      expect((await http(t.api.baseUrl, 'GET', `${SUBS}?status=${status}`, { key: ws.secretKey })).status).toBe(200);
    }
    expectError(await http(t.api.baseUrl, 'GET', `${SUBS}?status=expired`, { key: ws.secretKey }), 400, 'VALIDATION_ERROR');
    // Another workspace sees none of them.
    expect((await http<Page>(t.api.baseUrl, 'GET', SUBS, { key: (await t.ctx.createWorkspace()).secretKey })).body.data).toEqual([]);
  });

  it('retrieves one; an unknown id is 404 RESOURCE_NOT_FOUND', async () => {
    const { ws, basic, customer } = await setup();
    const sub = await create(ws.secretKey, { customerId: customer.id, planId: basic.id });
    expect((await http<{ data: SubscriptionDto }>(t.api.baseUrl, 'GET', `${SUBS}/${sub.id}`, { key: ws.secretKey })).body.data).toEqual(sub);
    expectError(await http(t.api.baseUrl, 'GET', `${SUBS}/sub_01JD4X7V1QZ8N6Y3K2M5P9R0TS`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('PATCH /v1/payment/subscriptions/:id', () => {
  const patch = (key: string, id: string, body: unknown, headers: Record<string, string> = {}) => http<{ data: SubscriptionDto }>(t.api.baseUrl, 'PATCH', `${SUBS}/${id}`, { key, body, headers });

  it('replaces metadata (null clears it), supports Idempotency-Key, and changes nothing else', async () => {
    const { ws, basic, customer } = await setup();
    const sub = await create(ws.secretKey, { customerId: customer.id, planId: basic.id, metadata: { a: '1', b: '2' } });
    const headers = idem();
    const res = await patch(ws.secretKey, sub.id, { metadata: { c: '3' } }, headers);
    expect(res.body.data).toMatchObject({ metadata: { c: '3' }, status: 'trialing', planId: basic.id });
    expect((await patch(ws.secretKey, sub.id, { metadata: { c: '3' } }, headers)).headers.get('idempotent-replayed')).toBe('true');
    expect((await patch(ws.secretKey, sub.id, { metadata: null })).body.data.metadata).toEqual({});
  });

  it('pauses an active subscription and resumes it, each signalled to its workflow in the same transaction', async () => {
    const { ws, basic, customer } = await setup();
    const sub = await create(ws.secretKey, { customerId: customer.id, planId: basic.id, trialDays: 0 });
    const paused = (await patch(ws.secretKey, sub.id, { status: 'paused' })).body.data;
    expect(paused).toMatchObject({ status: 'paused', pausedAt: expect.any(String) });
    expect((await patch(ws.secretKey, sub.id, { status: 'paused' })).body.data).toEqual({ ...paused, updatedAt: expect.any(String) });
    expect((await patch(ws.secretKey, sub.id, { status: 'active' })).body.data).toMatchObject({ status: 'active', pausedAt: null });
    const signals = await t.ctx.sequelize.query(`SELECT 1 FROM workflow_starts WHERE workflow_type = 'subscriptionChanged' AND workflow_id = :id`, {
      type: QueryTypes.SELECT,
      replacements: { id: `subscription:${sub.id}` },
    });
    expect(signals).toHaveLength(2);
  });

  it.each([
    ['status canceled', { status: 'canceled' }],
    ['status past_due', { status: 'past_due' }],
    ['an unknown field', { cancelAtPeriodEnd: true }],
    ['a planId that is not a plan id', { planId: 'cust_1' }],
  ])('refuses %s with 400 VALIDATION_ERROR and changes nothing', async (_case, body) => {
    const { ws, basic, customer } = await setup();
    const sub = await create(ws.secretKey, { customerId: customer.id, planId: basic.id, trialDays: 0 });
    const before = await written(ws.accountId);
    expectError(await patch(ws.secretKey, sub.id, body), 400, 'VALIDATION_ERROR');
    expect((await Subscription.findByPk(sub.id))!.updatedAt.toISOString()).toBe(sub.updatedAt);
    expect(await written(ws.accountId)).toEqual(before);
  });

  it('refuses moves the state table has not with 409 INVALID_STATE and changes nothing', async () => {
    const { ws, basic, customer } = await setup();
    const premium = await insertPlan(ws, { name: 'Premium', amount: 300_000 });
    const trialing = await create(ws.secretKey, { customerId: customer.id, planId: basic.id });
    const pastDue = await insertSubscriptionRow(ws, { customerId: customer.id, planId: basic.id }, { status: 'past_due' });
    const canceled = await insertSubscriptionRow(ws, { customerId: customer.id, planId: basic.id }, { status: 'canceled' });
    const active = await create(ws.secretKey, { customerId: customer.id, planId: basic.id, trialDays: 0 });
    const before = await written(ws.accountId);
    for (const [id, body] of [
      [trialing.id, { status: 'paused' }],
      [active.id, { status: 'active', planId: basic.id }],
      [pastDue.id, { status: 'paused' }],
      [pastDue.id, { status: 'active' }],
      [pastDue.id, { planId: premium.id }],
      [canceled.id, { status: 'active' }],
      [canceled.id, { planId: premium.id }],
    ] as const) {
      const res = await patch(ws.secretKey, id, body);
      if (body.status === 'active' && id === active.id) {
        expect(res.status).toBe(200);
        continue;
      }
      expectError(res, 409, 'INVALID_STATE');
    }
    expect(await written(ws.accountId)).toEqual(before);
    expect((await Subscription.findByPk(trialing.id))!.status).toBe('trialing');
    // Metadata of a canceled subscription can still change.
    expect((await patch(ws.secretKey, canceled.id, { metadata: { note: 'x' } })).status).toBe(200);
  });

  it('refuses a plan switch to a missing plan (404), an archived one, another currency or another interval (400), changing nothing', async () => {
    const { ws, basic, customer } = await setup();
    const sub = await create(ws.secretKey, { customerId: customer.id, planId: basic.id, trialDays: 0 });
    const other = await setup();
    const before = await written(ws.accountId);
    expectError(await patch(ws.secretKey, sub.id, { planId: other.basic.id }), 404, 'RESOURCE_NOT_FOUND');
    for (const plan of [await insertPlan(ws, { active: false }), await insertPlan(ws, { currency: 'USD' }), await insertPlan(ws, { interval: 'yearly' }), await insertPlan(ws, { intervalCount: 2 })]) {
      expectError(await patch(ws.secretKey, sub.id, { planId: plan.id }), 400, 'VALIDATION_ERROR');
    }
    expect(await written(ws.accountId)).toEqual(before);
    expect((await Subscription.findByPk(sub.id))!.planId).toBe(basic.id);
  });

  it('switches plan mid-period: an upgrade is invoiced at once with the proration lines; during the trial nothing is prorated', async () => {
    const { ws, basic, customer } = await setup();
    const premium = await insertPlan(ws, { name: 'Premium', amount: 300_000 });
    const active = await create(ws.secretKey, { customerId: customer.id, planId: basic.id, trialDays: 0 });
    const switched = (await patch(ws.secretKey, active.id, { planId: premium.id })).body.data;
    expect(switched.planId).toBe(premium.id);
    const proration = (await Invoice.findByPk(switched.latestInvoiceId!))!;
    expect(proration.lineItems.map((l) => l.description)).toEqual([expect.stringMatching(/^Unused time on Basic/), expect.stringMatching(/^Remaining time on Premium/)]);
    // Switched within seconds of the start: nearly the whole difference.
    expect(proration.amount).toBeGreaterThan(199_000);
    expect(proration.amount).toBeLessThanOrEqual(200_000);
    expect(await SubscriptionCharge.findByPk(proration.id)).toMatchObject({ reason: 'subscription_update', state: 'pending' });

    const trialing = await create(ws.secretKey, { customerId: customer.id, planId: basic.id });
    const invoicesBefore = await Invoice.count({ where: { accountId: ws.accountId } });
    expect((await patch(ws.secretKey, trialing.id, { planId: premium.id })).body.data).toMatchObject({ planId: premium.id, status: 'trialing', latestInvoiceId: null });
    expect(await Invoice.count({ where: { accountId: ws.accountId } })).toBe(invoicesBefore);
  });
});

describe('DELETE /v1/payment/subscriptions/:id', () => {
  const del = (key: string, id: string, query = '') => http<{ data: SubscriptionDto }>(t.api.baseUrl, 'DELETE', `${SUBS}/${id}${query}`, { key });

  it('defers by default: cancelAtPeriodEnd, still active, no canceled event yet; repeating it changes nothing', async () => {
    const { ws, basic, customer } = await setup();
    const sub = await create(ws.secretKey, { customerId: customer.id, planId: basic.id, trialDays: 0 });
    const res = await del(ws.secretKey, sub.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'active', cancelAtPeriodEnd: true, canceledAt: null });
    expect((await del(ws.secretKey, sub.id, '?immediate=false')).body.data).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    expect((await subscriptionEvents(t.ctx.sequelize, sub.id)).map((e) => e.type)).toEqual(['subscription.created']);
  });

  it('cancels now with immediate=true: canceled, its open invoice voided and its checkout session closed, subscription.canceled; no refund', async () => {
    const { ws, basic, customer } = await setup();
    const sub = await create(ws.secretKey, { customerId: customer.id, planId: basic.id, trialDays: 0 });
    const res = await del(ws.secretKey, sub.id, '?immediate=true');
    expect(res.body.data).toMatchObject({ status: 'canceled', canceledAt: expect.any(String), pausedAt: null });
    const invoice = (await Invoice.findByPk(sub.latestInvoiceId!))!;
    expect(invoice).toMatchObject({ status: 'void', voidedAt: new Date(res.body.data.canceledAt!) });
    expect((await CheckoutSession.findByPk(invoice.checkoutSessionId!))!.status).toBe('expired');
    expect(await SubscriptionCharge.findByPk(invoice.id)).toMatchObject({ state: 'void' });
    expect(await subscriptionEvents(t.ctx.sequelize, sub.id)).toEqual([
      { type: 'subscription.created', status: 'active' },
      { type: 'subscription.canceled', status: 'canceled' },
    ]);
  });

  it('leaves a payment the buyer already reported to the merchant: confirming it after the cancel keeps the invoice void', async () => {
    const { ws, basic, customer } = await setup();
    const sub = await create(ws.secretKey, { customerId: customer.id, planId: basic.id, trialDays: 0 });
    const invoice = (await Invoice.findByPk(sub.latestInvoiceId!))!;
    const sessionId = invoice.checkoutSessionId!;
    expect((await http(t.api.baseUrl, 'POST', `/api/v1/payment/checkout-sessions/${sessionId}/pay`, { body: { paymentMethod: 'va' } })).status).toBe(200);
    await del(ws.secretKey, sub.id, '?immediate=true');
    expect((await CheckoutSession.findByPk(sessionId))!.status).toBe('pending_review');
    expect((await Invoice.findByPk(invoice.id))!.status).toBe('void');
    expect((await http(t.api.baseUrl, 'POST', `/api/v1/payment/checkout-sessions/${sessionId}/confirm`, { key: ws.secretKey })).status).toBe(200);
    expect(await Invoice.findByPk(invoice.id)).toMatchObject({ status: 'void', paidAt: null });
    expect((await subscriptionEvents(t.ctx.sequelize, sub.id)).map((e) => e.type)).toEqual(['subscription.created', 'subscription.canceled']);
  });

  it('refuses a canceled subscription (409 INVALID_STATE) and a malformed immediate (400), changing nothing', async () => {
    const { ws, basic, customer } = await setup();
    const sub = await create(ws.secretKey, { customerId: customer.id, planId: basic.id, trialDays: 0 });
    expectError(await del(ws.secretKey, sub.id, '?immediate=yes'), 400, 'VALIDATION_ERROR');
    await del(ws.secretKey, sub.id, '?immediate=true');
    const before = await written(ws.accountId);
    expectError(await del(ws.secretKey, sub.id), 409, 'INVALID_STATE');
    expectError(await del(ws.secretKey, sub.id, '?immediate=true'), 409, 'INVALID_STATE');
    expect(await written(ws.accountId)).toEqual(before);
  });
});
