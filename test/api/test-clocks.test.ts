import { QueryTypes } from 'sequelize';
import { Invoice, Subscription, TestClock } from '../../db/models';
import { insertBillingCustomer, insertPlan, subscriptionEvents } from '../fixtures/subscriptions';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';

// Clock workflows started here go to a task queue no worker polls: the journeys with a worker are in test/e2e/.
const t = useTestApi({ TEMPORAL_TASK_QUEUE: `test-clocks-api-${process.pid}` });
const CLOCKS = '/api/v1/payment/test-clocks';

type ClockDto = { id: string; accountId: string; name: string | null; frozenTime: string; status: string; createdAt: string };
type Page = { data: ClockDto[]; meta: { page: { nextCursor: string | null } } };

async function createClock(key: string, body: Record<string, unknown> = { frozenTime: '2025-01-01T00:00:00Z' }): Promise<ClockDto> {
  const res = await http<{ data: ClockDto }>(t.api.baseUrl, 'POST', CLOCKS, { key, body });
  expect(res.status).toBe(201);
  return res.body.data;
}

const clockCount = (accountId: string) => TestClock.count({ where: { accountId } });

describe('test clocks', () => {
  it('creates a clock exactly as ARCHITECTURE.md shapes it, ready at its frozenTime', async () => {
    const ws = await t.ctx.createWorkspace();
    expect(await createClock(ws.secretKey, { frozenTime: '2025-03-01T12:30:00+07:00', name: 'Renewals' })).toEqual({
      id: expect.stringMatching(/^clock_[0-9A-Z]{26}$/),
      accountId: ws.accountId,
      name: 'Renewals',
      frozenTime: '2025-03-01T05:30:00.000Z',
      status: 'ready',
      createdAt: expect.any(String),
    });
    expect((await createClock(ws.secretKey)).name).toBeNull();
  });

  it.each([
    ['no frozenTime', { name: 'x' }],
    ['a frozenTime that is not ISO 8601', { frozenTime: 'next tuesday' }],
    ['a date without a time', { frozenTime: '2025-01-01' }],
    ['an empty name', { frozenTime: '2025-01-01T00:00:00Z', name: '' }],
    ['a name over 100 characters', { frozenTime: '2025-01-01T00:00:00Z', name: 'n'.repeat(101) }],
    ['an unknown field', { frozenTime: '2025-01-01T00:00:00Z', status: 'advancing' }],
  ])('refuses %s with 400 VALIDATION_ERROR and writes nothing', async (_case, body) => {
    const ws = await t.ctx.createWorkspace();
    expectError(await http(t.api.baseUrl, 'POST', CLOCKS, { key: ws.secretKey, body }), 400, 'VALIDATION_ERROR');
    expect(await clockCount(ws.accountId)).toBe(0);
  });

  it('answers 404 RESOURCE_NOT_FOUND to a live key on every route, writing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const clock = await createClock(ws.secretKey);
    const key = ws.liveSecretKey;
    expectError(await http(t.api.baseUrl, 'POST', CLOCKS, { key, body: { frozenTime: '2025-01-01T00:00:00Z' } }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'GET', CLOCKS, { key }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'GET', `${CLOCKS}/${clock.id}`, { key }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'POST', `${CLOCKS}/${clock.id}/advance`, { key, body: { frozenTime: '2026-01-01T00:00:00Z' } }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'DELETE', `${CLOCKS}/${clock.id}`, { key }), 404, 'RESOURCE_NOT_FOUND');
    expect(await TestClock.findAll({ where: { accountId: ws.accountId }, raw: true })).toEqual([
      expect.objectContaining({ id: clock.id, status: 'ready', deletedAt: null, frozenTime: new Date('2025-01-01T00:00:00Z') }),
    ]);
  });

  it('lists newest first in cursor pages, without deleted clocks; retrieves one', async () => {
    const ws = await t.ctx.createWorkspace();
    const [a, b, c] = [await createClock(ws.secretKey), await createClock(ws.secretKey), await createClock(ws.secretKey)];
    const first = (await http<Page>(t.api.baseUrl, 'GET', `${CLOCKS}?limit=2`, { key: ws.secretKey })).body;
    expect(first.data.map((x) => x.id)).toEqual([c!.id, b!.id]);
    const second = (await http<Page>(t.api.baseUrl, 'GET', `${CLOCKS}?limit=2&cursor=${first.meta.page.nextCursor}`, { key: ws.secretKey })).body;
    expect(second.data.map((x) => x.id)).toEqual([a!.id]);
    expect((await http(t.api.baseUrl, 'DELETE', `${CLOCKS}/${b!.id}`, { key: ws.secretKey })).status).toBe(200);
    expect((await http<Page>(t.api.baseUrl, 'GET', CLOCKS, { key: ws.secretKey })).body.data.map((x) => x.id)).toEqual([c!.id, a!.id]);
    expect((await http<{ data: ClockDto }>(t.api.baseUrl, 'GET', `${CLOCKS}/${a!.id}`, { key: ws.secretKey })).body.data).toEqual(a);
    expectError(await http(t.api.baseUrl, 'GET', `${CLOCKS}/${b!.id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
  });

  it('advances to a later time: 200 advancing with the new frozenTime and the clock workflow’s start recorded', async () => {
    const ws = await t.ctx.createWorkspace();
    const clock = await createClock(ws.secretKey);
    const res = await http<{ data: ClockDto }>(t.api.baseUrl, 'POST', `${CLOCKS}/${clock.id}/advance`, { key: ws.secretKey, body: { frozenTime: '2025-02-15T00:00:00Z' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...clock, frozenTime: '2025-02-15T00:00:00.000Z', status: 'advancing' });
    const starts = await t.ctx.sequelize.query(`SELECT workflow_type, workflow_id FROM workflow_starts WHERE account_id = :accountId`, {
      type: QueryTypes.SELECT,
      replacements: { accountId: ws.accountId },
    });
    expect(starts).toEqual([{ workflow_type: 'testClockAdvance', workflow_id: `test-clock:${clock.id}` }]);
  });

  it('refuses an advance to a time not later (400 VALIDATION_ERROR) and one while advancing (409 INVALID_STATE), changing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const clock = await createClock(ws.secretKey);
    const advance = (frozenTime: string) => http(t.api.baseUrl, 'POST', `${CLOCKS}/${clock.id}/advance`, { key: ws.secretKey, body: { frozenTime } });
    for (const time of ['2025-01-01T00:00:00Z', '2024-12-31T23:59:59Z']) {
      expectError(await advance(time), 400, 'VALIDATION_ERROR');
    }
    expect(await TestClock.findByPk(clock.id)).toMatchObject({ status: 'ready', frozenTime: new Date('2025-01-01T00:00:00Z') });
    expect((await advance('2025-01-02T00:00:00Z')).status).toBe(200);
    expectError(await advance('2025-01-03T00:00:00Z'), 409, 'INVALID_STATE');
    expect(await TestClock.findByPk(clock.id)).toMatchObject({ status: 'advancing', frozenTime: new Date('2025-01-02T00:00:00Z') });
  });

  it('deletes a clock and cancels its subscriptions at the clock’s time (their open invoices voided); its customers stay', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'pro' });
    const clock = await createClock(ws.secretKey, { frozenTime: '2025-05-05T00:00:00Z' });
    const plan = await insertPlan(ws);
    const customer = await insertBillingCustomer(ws, { testClockId: clock.id });
    const subs = [];
    for (const trialDays of [0, 7]) {
      const res = await http<{ data: { id: string; latestInvoiceId: string | null } }>(t.api.baseUrl, 'POST', '/api/v1/payment/subscriptions', {
        key: ws.secretKey,
        body: { customerId: customer.id, planId: plan.id, trialDays },
        headers: { 'idempotency-key': `clock-delete-${clock.id}-${trialDays}` },
      });
      expect(res.status).toBe(201);
      subs.push(res.body.data);
    }
    const res = await http<{ data: unknown }>(t.api.baseUrl, 'DELETE', `${CLOCKS}/${clock.id}`, { key: ws.secretKey });
    expect(res.body.data).toEqual({ id: clock.id, accountId: ws.accountId, deleted: true });
    for (const sub of subs) {
      expect(await Subscription.findByPk(sub.id)).toMatchObject({ status: 'canceled', canceledAt: new Date('2025-05-05T00:00:00Z') });
      expect((await subscriptionEvents(t.ctx.sequelize, sub.id)).at(-1)).toEqual({ type: 'subscription.canceled', status: 'canceled' });
    }
    expect((await Invoice.findByPk(subs[0]!.latestInvoiceId!))!.status).toBe('void');
    expect((await TestClock.findByPk(clock.id))!.deletedAt).not.toBeNull();
    expect((await http(t.api.baseUrl, 'GET', `/api/v1/payment/customers/${customer.id}`, { key: ws.secretKey })).status).toBe(200);
    expectError(await http(t.api.baseUrl, 'DELETE', `${CLOCKS}/${clock.id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'POST', `${CLOCKS}/${clock.id}/advance`, { key: ws.secretKey, body: { frozenTime: '2026-01-01T00:00:00Z' } }), 404, 'RESOURCE_NOT_FOUND');
  });
});
