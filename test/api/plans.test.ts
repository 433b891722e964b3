import { BillingPlan, PlanPrice } from '../../db/models';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';

const t = useTestApi();
const PLANS = '/api/v1/payment/plans';

type PriceDto = { id: string; planId: string; amount: number; currency: string; interval: string; nickname: string | null; active: boolean };
type PlanDto = { id: string; accountId: string; name: string; amount: number; currency: string; interval: string; intervalCount: number; trialDays: number | null; active: boolean; prices: PriceDto[]; metadata: Record<string, string> };
type Page = { data: PlanDto[]; meta: { page: { nextCursor: string | null } } };

const monthly = { name: 'Pro monthly', amount: 99_000, currency: 'IDR', interval: 'monthly' };

async function createPlan(key: string, body: Record<string, unknown> = monthly) {
  const res = await http<{ data: PlanDto }>(t.api.baseUrl, 'POST', PLANS, { key, body });
  expect(res.status).toBe(201);
  return res.body.data;
}

describe('POST /v1/payment/plans', () => {
  it('creates a plan with defaults (intervalCount 1, active, no tiers)', async () => {
    const ws = await t.ctx.createWorkspace();
    const plan = await createPlan(ws.secretKey, { ...monthly, description: 'Everything', trialDays: 14, metadata: { sku: 'pro' } });
    expect(plan).toEqual({
      id: expect.stringMatching(/^plan_[0-9A-Z]{26}$/),
      accountId: ws.accountId,
      name: 'Pro monthly',
      description: 'Everything',
      amount: 99_000,
      currency: 'IDR',
      interval: 'monthly',
      intervalCount: 1,
      trialDays: 14,
      active: true,
      prices: [],
      metadata: { sku: 'pro' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it.each([
    ['no name', { ...monthly, name: undefined }],
    ['a name over 100 characters', { ...monthly, name: 'n'.repeat(101) }],
    ['amount 0', { ...monthly, amount: 0 }],
    ['a fractional amount', { ...monthly, amount: 1.5 }],
    ['a 2-letter currency', { ...monthly, currency: 'ID' }],
    ['an unknown interval', { ...monthly, interval: 'hourly' }],
    ['intervalCount 0', { ...monthly, intervalCount: 0 }],
    ['negative trialDays', { ...monthly, trialDays: -1 }],
    ['an unknown field', { ...monthly, tiers: [] }],
  ])('refuses %s with 400 VALIDATION_ERROR and writes nothing', async (_case, body) => {
    const ws = await t.ctx.createWorkspace();
    expectError(await http(t.api.baseUrl, 'POST', PLANS, { key: ws.secretKey, body }), 400, 'VALIDATION_ERROR');
    expect(await BillingPlan.count({ where: { accountId: ws.accountId } })).toBe(0);
  });

  it('replays a create with the same Idempotency-Key and body; another body under that key is 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const ws = await t.ctx.createWorkspace();
    const headers = { 'idempotency-key': 'plan-create-1' };
    const first = await http<{ data: PlanDto }>(t.api.baseUrl, 'POST', PLANS, { key: ws.secretKey, body: monthly, headers });
    const again = await http<{ data: PlanDto }>(t.api.baseUrl, 'POST', PLANS, { key: ws.secretKey, body: monthly, headers });
    expect(again.body.data.id).toBe(first.body.data.id);
    expectError(await http(t.api.baseUrl, 'POST', PLANS, { key: ws.secretKey, body: { ...monthly, amount: 1 }, headers }), 409, 'IDEMPOTENCY_KEY_REUSED');
    expect(await BillingPlan.count({ where: { accountId: ws.accountId } })).toBe(1);
  });

  it('refuses the fourth active plan on free with 403 QUOTA_EXCEEDED; an archived plan frees its slot', async () => {
    const ws = await t.ctx.createWorkspace();
    const plans = [];
    for (let i = 0; i < 3; i += 1) plans.push(await createPlan(ws.secretKey));
    expectError(await http(t.api.baseUrl, 'POST', PLANS, { key: ws.secretKey, body: monthly }), 403, 'QUOTA_EXCEEDED');
    expect(await BillingPlan.count({ where: { accountId: ws.accountId } })).toBe(3);
    expect((await http(t.api.baseUrl, 'DELETE', `${PLANS}/${plans[0]!.id}`, { key: ws.secretKey })).status).toBe(200);
    await createPlan(ws.secretKey);
    expectError(await http(t.api.baseUrl, 'PATCH', `${PLANS}/${plans[0]!.id}`, { key: ws.secretKey, body: { active: true } }), 403, 'QUOTA_EXCEEDED');
    expect((await BillingPlan.findByPk(plans[0]!.id))?.active).toBe(false);
  });
});

describe('GET /v1/payment/plans', () => {
  it('lists newest first without archived plans unless includeArchived=true', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'pro' });
    const a = await createPlan(ws.secretKey);
    const b = await createPlan(ws.secretKey);
    await http(t.api.baseUrl, 'DELETE', `${PLANS}/${a.id}`, { key: ws.secretKey });
    const listed = await http<Page>(t.api.baseUrl, 'GET', PLANS, { key: ws.secretKey });
    expect(listed.body.data.map((p) => p.id)).toEqual([b.id]);
    const all = await http<Page>(t.api.baseUrl, 'GET', `${PLANS}?includeArchived=true&limit=1`, { key: ws.secretKey });
    expect(all.body.data.map((p) => p.id)).toEqual([b.id]);
    const next = await http<Page>(t.api.baseUrl, 'GET', `${PLANS}?includeArchived=true&limit=1&cursor=${all.body.meta.page.nextCursor}`, { key: ws.secretKey });
    expect(next.body.data.map((p) => [p.id, p.active])).toEqual([[a.id, false]]);
  });
});

describe('PATCH and DELETE /v1/payment/plans/:id', () => {
  it('updates the patchable fields; currency and interval are not patchable (400, unchanged)', async () => {
    const ws = await t.ctx.createWorkspace();
    const plan = await createPlan(ws.secretKey);
    const res = await http<{ data: PlanDto }>(t.api.baseUrl, 'PATCH', `${PLANS}/${plan.id}`, { key: ws.secretKey, body: { name: 'Renamed', amount: 120_000, trialDays: null, metadata: { v: '2' } } });
    expect(res.body.data).toMatchObject({ name: 'Renamed', amount: 120_000, trialDays: null, metadata: { v: '2' } });
    // An empty or missing body changes nothing, so it is refused rather than answered 200.
    for (const body of [{ currency: 'USD' }, { interval: 'yearly' }, { amount: 0 }, {}, undefined]) {
      expectError(await http(t.api.baseUrl, 'PATCH', `${PLANS}/${plan.id}`, { key: ws.secretKey, body }), 400, 'VALIDATION_ERROR');
    }
    const row = await BillingPlan.findByPk(plan.id);
    expect({ currency: row?.currency, interval: row?.interval, amount: row?.amount }).toEqual({ currency: 'IDR', interval: 'monthly', amount: 120_000 });
  });

  it('archives with DELETE (active false, kept, retrievable); again is the same answer', async () => {
    const ws = await t.ctx.createWorkspace();
    const plan = await createPlan(ws.secretKey);
    const first = await http<{ data: PlanDto }>(t.api.baseUrl, 'DELETE', `${PLANS}/${plan.id}`, { key: ws.secretKey });
    expect(first.body.data.active).toBe(false);
    const again = await http<{ data: PlanDto }>(t.api.baseUrl, 'DELETE', `${PLANS}/${plan.id}`, { key: ws.secretKey });
    expect(again.body.data.active).toBe(false);
    expect((await http<{ data: PlanDto }>(t.api.baseUrl, 'GET', `${PLANS}/${plan.id}`, { key: ws.secretKey })).body.data.id).toBe(plan.id);
  });

  it('answers 404 RESOURCE_NOT_FOUND for an unknown plan', async () => {
    const ws = await t.ctx.createWorkspace();
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const res = await http(t.api.baseUrl, method, `${PLANS}/plan_01JD4X7V1QZ8N6Y3K2M5P9R0TS`, { key: ws.secretKey, body: method === 'PATCH' ? { name: 'x' } : undefined });
      expectError(res, 404, 'RESOURCE_NOT_FOUND');
    }
  });
});

describe('price tiers', () => {
  it('adds tiers (201) shown on the plan; PATCH changes only nickname and active', async () => {
    const ws = await t.ctx.createWorkspace();
    const plan = await createPlan(ws.secretKey);
    const added = await http<{ data: PriceDto }>(t.api.baseUrl, 'POST', `${PLANS}/${plan.id}/prices`, { key: ws.secretKey, body: { amount: 990_000, currency: 'IDR', interval: 'yearly', nickname: 'Annual' } });
    expect(added.status).toBe(201);
    expect(added.body.data).toMatchObject({ id: expect.stringMatching(/^price_[0-9A-Z]{26}$/), planId: plan.id, amount: 990_000, nickname: 'Annual', active: true });
    const patched = await http<{ data: PriceDto }>(t.api.baseUrl, 'PATCH', `${PLANS}/prices/${added.body.data.id}`, { key: ws.secretKey, body: { nickname: 'Yearly', active: false } });
    expect(patched.body.data).toMatchObject({ nickname: 'Yearly', active: false, amount: 990_000 });
    const shown = await http<{ data: PlanDto }>(t.api.baseUrl, 'GET', `${PLANS}/${plan.id}`, { key: ws.secretKey });
    expect(shown.body.data.prices.map((p) => [p.id, p.nickname])).toEqual([[added.body.data.id, 'Yearly']]);
  });

  it('refuses amount or currency, or no field at all, in a tier PATCH with 400 VALIDATION_ERROR, changing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const plan = await createPlan(ws.secretKey);
    const price = (await http<{ data: PriceDto }>(t.api.baseUrl, 'POST', `${PLANS}/${plan.id}/prices`, { key: ws.secretKey, body: { amount: 5_000, currency: 'IDR', interval: 'weekly' } })).body.data;
    for (const body of [{ amount: 1 }, { currency: 'USD' }, { nickname: 'x', amount: 1 }, {}, undefined]) {
      expectError(await http(t.api.baseUrl, 'PATCH', `${PLANS}/prices/${price.id}`, { key: ws.secretKey, body }), 400, 'VALIDATION_ERROR');
    }
    const row = await PlanPrice.findByPk(price.id);
    expect({ amount: row?.amount, currency: row?.currency, nickname: row?.nickname }).toEqual({ amount: 5_000, currency: 'IDR', nickname: null });
  });

  it('refuses a bad tier body (400) and a tier for an unknown plan (404), writing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const plan = await createPlan(ws.secretKey);
    expectError(await http(t.api.baseUrl, 'POST', `${PLANS}/${plan.id}/prices`, { key: ws.secretKey, body: { amount: 5_000, currency: 'IDR' } }), 400, 'VALIDATION_ERROR');
    expectError(await http(t.api.baseUrl, 'POST', `${PLANS}/plan_01JD4X7V1QZ8N6Y3K2M5P9R0TS/prices`, { key: ws.secretKey, body: { amount: 5_000, currency: 'IDR', interval: 'weekly' } }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await http(t.api.baseUrl, 'PATCH', `${PLANS}/prices/price_01JD4X7V1QZ8N6Y3K2M5P9R0TS`, { key: ws.secretKey, body: { nickname: 'x' } }), 404, 'RESOURCE_NOT_FOUND');
    expect(await PlanPrice.count({ where: { accountId: ws.accountId } })).toBe(0);
  });
});
