import { QueryTypes } from 'sequelize';
import { Account, CheckoutSession, Customer, Invoice } from '../../db/models';
import { invoiceNumber } from '../../domain/invoices/issue';
import { newId } from '../../lib/ids';
import { workflowIds } from '../../workflows/messages';
import { insertCustomer } from '../fixtures/billing';
import { insertCheckoutSessionRow } from '../fixtures/checkout';
import { insertInvoice } from '../fixtures/invoices';
import { http, useTestApi, type HttpResult } from '../helpers/context';
import { expectError } from '../helpers/expect';

const t = useTestApi();
const ISSUE = '/api/v1/billing/invoices';
const INVOICES = '/api/v1/payment/invoices';
const SETTINGS = '/api/v1/account/billing';
const SESSIONS = '/api/v1/payment/checkout-sessions';
const DAY = 24 * 60 * 60 * 1000;

type InvoiceDto = Record<string, unknown> & {
  id: string;
  number: string;
  status: string;
  amount: number;
  taxAmount: number;
  memo: string | null;
  issuedAt: string;
  dueAt: string | null;
  hostedUrl: string | null;
  metadata: Record<string, string>;
};
type Envelope<T> = { data: T; error: { code: string; message: string } | null };

const post = <T = InvoiceDto>(path: string, key: string, body?: unknown, headers?: Record<string, string>) =>
  http<Envelope<T>>(t.api.baseUrl, 'POST', path, { key, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
const get = <T = InvoiceDto>(path: string, key: string) => http<Envelope<T>>(t.api.baseUrl, 'GET', path, { key });

const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();

function body(customerId: string, overrides: Record<string, unknown> = {}) {
  return {
    customerId,
    currency: 'USD',
    lineItems: [
      { description: 'Design work', quantity: 3, unitAmount: 12_500 },
      { description: 'Hosting', quantity: 1, unitAmount: 2_000 },
    ],
    dueAt: inDays(14),
    memo: 'Thank you for your business.\nBank transfer within 14 days.',
    metadata: { project: 'rebrand' },
    ...overrides,
  };
}

/** Everything issuance writes for a workspace: invoices, sessions, the counter, workflow starts. */
async function written(accountId: string) {
  const [row] = await t.ctx.sequelize.query<Record<string, number>>(
    `SELECT (SELECT count(*) FROM invoices WHERE account_id = :accountId)::int AS invoices,
            (SELECT count(*) FROM checkout_sessions WHERE account_id = :accountId)::int AS sessions,
            (SELECT coalesce(sum(last_value), 0) FROM number_sequences WHERE account_id = :accountId)::int AS numbered,
            (SELECT count(*) FROM workflow_starts WHERE account_id = :accountId)::int AS starts`,
    { type: QueryTypes.SELECT, replacements: { accountId } },
  );
  return row!;
}

async function invoiceState(accountId: string) {
  return t.ctx.sequelize.query(
    `SELECT i.id, i.status, i.paid_at, i.voided_at, i.updated_at, s.status AS session_status, s.expired_at, s.updated_at AS session_updated
       FROM invoices i LEFT JOIN checkout_sessions s ON s.id = i.checkout_session_id WHERE i.account_id = :accountId ORDER BY i.id`,
    { type: QueryTypes.SELECT, replacements: { accountId } },
  );
}

describe('POST /v1/billing/invoices (manual issuance)', () => {
  it('issues an open, numbered, taxed invoice payable on the hosted page of a checkout session written with it', async () => {
    const ws = await t.ctx.createWorkspace();
    await Account.update({ invoiceTaxRateBps: 1100 }, { where: { id: ws.accountId } });
    const customer = await insertCustomer(ws, { name: 'Grace Hopper' });
    const dueAt = inDays(14);
    const before = Date.now();
    const res = await post(ISSUE, ws.secretKey, body(customer.id, { dueAt }));
    expect(res.status).toBe(201);
    const invoice = res.body.data;
    // 3 × 12,500 + 2,000 = 39,500; 11% = 4,345.
    expect(invoice).toEqual({
      id: expect.stringMatching(/^inv_[0-9A-Z]{26}$/),
      accountId: ws.accountId,
      customerId: customer.id,
      subscriptionId: null,
      number: invoiceNumber(ws.slug, 1),
      status: 'open',
      amount: 43_845,
      subtotal: 39_500,
      taxAmount: 4_345,
      currency: 'USD',
      lineItems: [
        { description: 'Design work', quantity: 3, unitAmount: 12_500, amount: 37_500 },
        { description: 'Hosting', quantity: 1, unitAmount: 2_000, amount: 2_000 },
      ],
      memo: 'Thank you for your business.\nBank transfer within 14 days.',
      periodStart: null,
      periodEnd: null,
      issuedAt: expect.any(String),
      dueAt: new Date(dueAt).toISOString(),
      paidAt: null,
      voidedAt: null,
      hostedUrl: expect.stringMatching(new RegExp(`^${t.ctx.config.PUBLIC_BASE_URL}/checkout/cs_[0-9A-Z]{26}$`)),
      pdfUrl: `${t.ctx.config.PUBLIC_BASE_URL}/api/v1/payment/invoices/${invoice.id}/pdf`,
      metadata: { project: 'rebrand', checkoutSessionId: expect.stringMatching(/^cs_/) },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(Date.parse(invoice.issuedAt as string)).toBeGreaterThanOrEqual(before - 1000);

    const sessionId = invoice.metadata.checkoutSessionId!;
    expect(invoice.hostedUrl).toBe(`${t.ctx.config.PUBLIC_BASE_URL}/checkout/${sessionId}`);
    const session = (await CheckoutSession.findByPk(sessionId))!;
    expect(session).toMatchObject({
      accountId: ws.accountId,
      environment: 'test',
      status: 'open',
      source: 'invoice',
      amount: 43_845,
      subtotal: 43_845,
      currency: 'USD',
      description: `Invoice ${invoice.number}`,
      customerEmail: customer.email,
      customerName: 'Grace Hopper',
      customerId: customer.id,
      metadata: { invoiceId: invoice.id },
    });
    // The tax is a line of its own, so the hosted page adds up to the amount asked.
    expect(session.lineItems.map((l) => [l.name, l.quantity, l.unitAmount, l.amount, l.productId])).toEqual([
      ['Design work', 3, 12_500, 37_500, null],
      ['Hosting', 1, 2_000, 2_000, null],
      ['Tax', 1, 4_345, 4_345, null],
    ]);
    // Payable for 30 days past the due date.
    expect(session.expiresAt.toISOString()).toBe(new Date(Date.parse(dueAt) + 30 * DAY).toISOString());
    const starts = await t.ctx.sequelize.query<{ workflow_type: string; workflow_id: string }>('SELECT workflow_type, workflow_id FROM workflow_starts WHERE account_id = :a', {
      type: QueryTypes.SELECT,
      replacements: { a: ws.accountId },
    });
    expect(starts).toEqual([{ workflow_type: 'checkoutSession', workflow_id: workflowIds.checkoutSession(sessionId) }]);
    expect((await Invoice.findByPk(invoice.id))!.checkoutSessionId).toBe(sessionId);
    expect((await get(`${INVOICES}/${invoice.id}`, ws.secretKey)).body.data).toEqual(invoice);
  });

  it('defaults the due date to 30 days after issue and leaves out memo and metadata', async () => {
    const ws = await t.ctx.createWorkspace();
    const customer = await insertCustomer(ws);
    const res = await post(ISSUE, ws.secretKey, { customerId: customer.id, currency: 'IDR', lineItems: [{ description: 'Kelas', quantity: 1, unitAmount: 150_000 }] });
    expect(res.status).toBe(201);
    const { issuedAt, dueAt, memo, metadata, taxAmount, amount } = res.body.data;
    expect(Date.parse(dueAt!) - Date.parse(issuedAt)).toBe(30 * DAY);
    expect({ memo, taxAmount, amount, keys: Object.keys(metadata) }).toEqual({ memo: null, taxAmount: 0, amount: 150_000, keys: ['checkoutSessionId'] });
  });

  it('rounds the tax half up to the smallest unit at the workspace rate in force at issue', async () => {
    const ws = await t.ctx.createWorkspace();
    const customer = await insertCustomer(ws);
    const taxOf = async (bps: number, unitAmount: number) => {
      await Account.update({ invoiceTaxRateBps: bps }, { where: { id: ws.accountId } });
      const res = await post(ISSUE, ws.secretKey, { customerId: customer.id, currency: 'USD', lineItems: [{ description: 'x', quantity: 1, unitAmount }] });
      return res.body.data.taxAmount;
    };
    // 10% of 5 = 0.5 → 1; of 4 = 0.4 → 0; 12.5% of 12 = 1.5 → 2; 11% of 12,345 = 1,357.95 → 1,358; 100% of 999 = 999.
    expect([await taxOf(1000, 5), await taxOf(1000, 4), await taxOf(1250, 12), await taxOf(1100, 12_345), await taxOf(10_000, 999)]).toEqual([1, 0, 2, 1358, 999]);
  });

  it('issues a zero total as paid at once, with nothing to collect', async () => {
    const ws = await t.ctx.createWorkspace();
    const customer = await insertCustomer(ws);
    const res = await post(ISSUE, ws.secretKey, body(customer.id, { lineItems: [{ description: 'Complimentary audit', quantity: 1, unitAmount: 0 }], metadata: undefined }));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'paid', amount: 0, hostedUrl: null, paidAt: res.body.data.issuedAt, metadata: {} });
    expect(await written(ws.accountId)).toEqual({ invoices: 1, sessions: 0, numbered: 1, starts: 0 });
  });

  const FAR = inDays(366);
  it.each<[string, (customerId: string) => Record<string, unknown>]>([
    ['no lineItems', (c) => body(c, { lineItems: undefined })],
    ['an empty lineItems', (c) => body(c, { lineItems: [] })],
    ['101 lines', (c) => body(c, { lineItems: Array.from({ length: 101 }, () => ({ description: 'x', quantity: 1, unitAmount: 1 })) })],
    ['quantity 0', (c) => body(c, { lineItems: [{ description: 'x', quantity: 0, unitAmount: 1 }] })],
    ['a fractional quantity', (c) => body(c, { lineItems: [{ description: 'x', quantity: 1.5, unitAmount: 1 }] })],
    ['a negative unitAmount', (c) => body(c, { lineItems: [{ description: 'x', quantity: 1, unitAmount: -1 }] })],
    ['a fractional unitAmount', (c) => body(c, { lineItems: [{ description: 'x', quantity: 1, unitAmount: 9.99 }] })],
    ['a line over 10^12', (c) => body(c, { lineItems: [{ description: 'x', quantity: 2, unitAmount: 600_000_000_000 }] })],
    ['a subtotal over 10^12', (c) => body(c, { lineItems: [600_000_000_000, 600_000_000_000].map((unitAmount) => ({ description: 'x', quantity: 1, unitAmount })) })],
    ['an empty description', (c) => body(c, { lineItems: [{ description: ' ', quantity: 1, unitAmount: 1 }] })],
    ['an unknown line field', (c) => body(c, { lineItems: [{ description: 'x', quantity: 1, unitAmount: 1, amount: 1 }] })],
    ['a past due date', (c) => body(c, { dueAt: inDays(-1) })],
    ['a due date over a year out', (c) => body(c, { dueAt: FAR })],
    ['a due date that is not ISO 8601', (c) => body(c, { dueAt: 'next friday' })],
    ['a currency the hosted page cannot collect', (c) => body(c, { currency: 'EUR' })],
    ['no currency', (c) => body(c, { currency: undefined })],
    ['the reserved metadata key', (c) => body(c, { metadata: { checkoutSessionId: 'cs_mine' } })],
    ['51 metadata entries', (c) => body(c, { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) })],
    ['a memo over 2000 characters', (c) => body(c, { memo: 'm'.repeat(2001) })],
    ['a malformed customerId', () => body('cust_nope')],
    ['an unknown field', (c) => body(c, { status: 'paid' })],
  ])('refuses %s with 400 VALIDATION_ERROR and writes nothing', async (_case, make) => {
    const ws = await t.ctx.createWorkspace();
    const customer = await insertCustomer(ws);
    const res = await post(ISSUE, ws.secretKey, make(customer.id));
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(await written(ws.accountId)).toEqual({ invoices: 0, sessions: 0, numbered: 0, starts: 0 });
  });

  it('answers 404 RESOURCE_NOT_FOUND for a customer that is unknown, another workspace’s or the other environment’s, writing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    const candidates = [newId('cust'), (await insertCustomer(other)).id, (await insertCustomer({ accountId: ws.accountId, environment: 'live' })).id];
    for (const customerId of candidates) {
      expectError(await post(ISSUE, ws.secretKey, body(customerId)), 404, 'RESOURCE_NOT_FOUND');
    }
    expect(await written(ws.accountId)).toEqual({ invoices: 0, sessions: 0, numbered: 0, starts: 0 });
  });

  it('refuses a customer without an e-mail address (nowhere to send the payment page) and hands its number back', async () => {
    const ws = await t.ctx.createWorkspace();
    const silent = await Customer.create({ id: newId('cust'), accountId: ws.accountId, environment: 'test', email: null, name: 'No Mail' });
    const customer = await insertCustomer(ws);
    expect((await post(ISSUE, ws.secretKey, body(customer.id))).body.data.number).toBe(invoiceNumber(ws.slug, 1));
    expectError(await post(ISSUE, ws.secretKey, body(silent.id)), 400, 'VALIDATION_ERROR');
    expect((await post(ISSUE, ws.secretKey, body(customer.id))).body.data.number).toBe(invoiceNumber(ws.slug, 2));
    expect(await written(ws.accountId)).toEqual({ invoices: 2, sessions: 2, numbered: 2, starts: 2 });
  });

  it('replays a retried Idempotency-Key once, and refuses the key with another body', async () => {
    const ws = await t.ctx.createWorkspace();
    const customer = await insertCustomer(ws);
    const headers = { 'idempotency-key': 'issue-once' };
    const sent = body(customer.id);
    const first = await post(ISSUE, ws.secretKey, sent, headers);
    const again = await post(ISSUE, ws.secretKey, sent, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.data).toEqual(first.body.data);
    expectError(await post(ISSUE, ws.secretKey, { ...sent, memo: 'changed' }, headers), 409, 'IDEMPOTENCY_KEY_REUSED');
    expect(await written(ws.accountId)).toEqual({ invoices: 1, sessions: 1, numbered: 1, starts: 1 });
  });

  it('numbers 50 concurrent issuances 1..50 with no gap and no duplicate; the live environment has its own series', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'pro' });
    const customer = await insertCustomer(ws);
    const results = await Promise.all(Array.from({ length: 50 }, () => post(ISSUE, ws.secretKey, body(customer.id))));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const numbers = results.map((r) => r.body.data.number).sort();
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => invoiceNumber(ws.slug, i + 1)));
    const stored = await Invoice.findAll({ where: { accountId: ws.accountId }, attributes: ['number'] });
    expect(new Set(stored.map((i) => i.number)).size).toBe(50);

    const liveCustomer = await insertCustomer({ accountId: ws.accountId, environment: 'live' });
    expect((await post(ISSUE, ws.liveSecretKey, body(liveCustomer.id))).body.data.number).toBe(invoiceNumber(ws.slug, 1));
  });

  it('is paid when its checkout session is paid by the buyer and confirmed by the merchant', async () => {
    const ws = await t.ctx.createWorkspace();
    const customer = await insertCustomer(ws);
    const invoice = (await post(ISSUE, ws.secretKey, body(customer.id))).body.data;
    const sessionId = invoice.metadata.checkoutSessionId!;
    expect((await http(t.api.baseUrl, 'POST', `${SESSIONS}/${sessionId}/pay`, { body: { paymentMethod: 'va' } })).status).toBe(200);
    expect((await get(`${INVOICES}/${invoice.id}`, ws.secretKey)).body.data).toMatchObject({ status: 'open', paidAt: null });
    const confirmed = await post<{ completedAt: string }>(`${SESSIONS}/${sessionId}/confirm`, ws.secretKey);
    expect(confirmed.status).toBe(200);
    const paid = (await get(`${INVOICES}/${invoice.id}`, ws.secretKey)).body.data;
    expect(paid).toMatchObject({ status: 'paid', paidAt: confirmed.body.data.completedAt });
  });

  it('completing a session that collects no invoice pays no invoice', async () => {
    const ws = await t.ctx.createWorkspace();
    const open = await insertInvoice(t.ctx.sequelize, ws);
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'pending_review' });
    expect((await post(`${SESSIONS}/${session.id}/confirm`, ws.secretKey)).status).toBe(200);
    expect((await open.reload()).status).toBe('open');
  });
});

describe('POST /v1/billing/invoices/:id/void', () => {
  async function issued(ws: { accountId: string; secretKey: string }) {
    const customer = await insertCustomer(ws);
    return (await post(ISSUE, ws.secretKey, body(customer.id))).body.data;
  }

  it('voids an open invoice and expires its open checkout session, so the buyer can no longer pay', async () => {
    const ws = await t.ctx.createWorkspace();
    const invoice = await issued(ws);
    const before = Date.now();
    const res = await post(`${ISSUE}/${invoice.id}/void`, ws.secretKey);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...invoice, status: 'void', voidedAt: expect.any(String), updatedAt: expect.any(String) });
    expect(Date.parse(res.body.data.voidedAt as string)).toBeGreaterThanOrEqual(before - 1000);
    const session = (await CheckoutSession.findByPk(invoice.metadata.checkoutSessionId))!;
    expect({ status: session.status, expiredAt: session.expiredAt?.toISOString() }).toEqual({ status: 'expired', expiredAt: res.body.data.voidedAt });
    expectError(await http(t.api.baseUrl, 'POST', `${SESSIONS}/${session.id}/pay`, { body: { paymentMethod: 'va' } }), 409, 'INVALID_STATE');
  });

  it('voids a draft and an uncollectible invoice, which have no session', async () => {
    const ws = await t.ctx.createWorkspace();
    for (const status of ['draft', 'uncollectible'] as const) {
      const invoice = await insertInvoice(t.ctx.sequelize, ws, { status });
      expect((await post(`${ISSUE}/${invoice.id}/void`, ws.secretKey)).body.data).toMatchObject({ status: 'void', voidedAt: expect.any(String) });
    }
  });

  it.each([
    ['paid', async (ws: { accountId: string; secretKey: string }) => (await insertInvoice(t.ctx.sequelize, ws, { status: 'paid' })).id],
    ['void', async (ws: { accountId: string; secretKey: string }) => (await insertInvoice(t.ctx.sequelize, ws, { status: 'void' })).id],
    [
      'open with a payment awaiting the merchant’s confirmation',
      async (ws: { accountId: string; secretKey: string }) => {
        const invoice = await issued(ws);
        await http(t.api.baseUrl, 'POST', `${SESSIONS}/${invoice.metadata.checkoutSessionId}/pay`, { body: { paymentMethod: 'va' } });
        return invoice.id;
      },
    ],
  ])('refuses an invoice that is %s with 409 INVALID_STATE, changing nothing', async (_case, make) => {
    const ws = await t.ctx.createWorkspace();
    const id = await make(ws);
    const before = await invoiceState(ws.accountId);
    expectError(await post(`${ISSUE}/${id}/void`, ws.secretKey), 409, 'INVALID_STATE');
    expect(await invoiceState(ws.accountId)).toEqual(before);
  });

  it('answers 404 for an unknown invoice', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await post(`${ISSUE}/${newId('inv')}/void`, ws.secretKey), 404, 'RESOURCE_NOT_FOUND');
  });

  it('a void racing the buyer’s pay: exactly one wins, and the invoice and its session agree', async () => {
    const ws = await t.ctx.createWorkspace();
    for (let round = 0; round < 6; round += 1) {
      const invoice = await issued(ws);
      const sessionId = invoice.metadata.checkoutSessionId!;
      const [voided, paid] = await Promise.all([
        post(`${ISSUE}/${invoice.id}/void`, ws.secretKey),
        http(t.api.baseUrl, 'POST', `${SESSIONS}/${sessionId}/pay`, { body: { paymentMethod: 'va' } }),
      ]);
      const state = [(await Invoice.findByPk(invoice.id))!.status, (await CheckoutSession.findByPk(sessionId))!.status];
      expect(['200/409 → void/expired', '409/200 → open/pending_review']).toContain(`${voided.status}/${paid.status} → ${state.join('/')}`);
    }
  });
});

describe('GET/PATCH /v1/account/billing', () => {
  const settings = (res: HttpResult<Envelope<unknown>>) => res.body.data;

  it('answers the defaults: no tax, cancel after the final retry', async () => {
    const ws = await t.ctx.createWorkspace();
    expect(settings(await get(SETTINGS, ws.secretKey))).toEqual({ accountId: ws.accountId, taxRateBps: 0, dunningFinalAction: 'cancel' });
  });

  it('updates each field alone; the settings are the workspace’s, the same for both environments', async () => {
    const ws = await t.ctx.createWorkspace();
    const patched = await http<Envelope<unknown>>(t.api.baseUrl, 'PATCH', SETTINGS, { key: ws.secretKey, body: { taxRateBps: 1100 } });
    expect(patched.status).toBe(200);
    expect(settings(patched)).toEqual({ accountId: ws.accountId, taxRateBps: 1100, dunningFinalAction: 'cancel' });
    const live = await http<Envelope<unknown>>(t.api.baseUrl, 'PATCH', SETTINGS, { key: ws.liveSecretKey, body: { dunningFinalAction: 'leave_unpaid' } });
    expect(settings(live)).toEqual({ accountId: ws.accountId, taxRateBps: 1100, dunningFinalAction: 'leave_unpaid' });
    expect(settings(await get(SETTINGS, ws.secretKey))).toEqual({ accountId: ws.accountId, taxRateBps: 1100, dunningFinalAction: 'leave_unpaid' });
    expect(await Account.findByPk(ws.accountId, { attributes: ['invoiceTaxRateBps', 'dunningFinalAction'], raw: true })).toEqual({ invoiceTaxRateBps: 1100, dunningFinalAction: 'leave_unpaid' });
  });

  it('applies a new rate to invoices issued afterwards only', async () => {
    const ws = await t.ctx.createWorkspace();
    const customer = await insertCustomer(ws);
    const first = (await post(ISSUE, ws.secretKey, body(customer.id))).body.data;
    await http(t.api.baseUrl, 'PATCH', SETTINGS, { key: ws.secretKey, body: { taxRateBps: 1000 } });
    const second = (await post(ISSUE, ws.secretKey, body(customer.id))).body.data;
    expect((await get(`${INVOICES}/${first.id}`, ws.secretKey)).body.data).toMatchObject({ taxAmount: 0, amount: 39_500 });
    expect(second).toMatchObject({ taxAmount: 3_950, amount: 43_450 });
  });

  it.each([
    ['a negative rate', { taxRateBps: -1 }],
    ['a rate over 10000', { taxRateBps: 10_001 }],
    ['a fractional rate', { taxRateBps: 10.5 }],
    ['a rate as a string', { taxRateBps: '1000' }],
    ['an unknown dunning action', { dunningFinalAction: 'delete' }],
    ['an empty body', {}],
    ['an unknown field', { currency: 'USD' }],
  ])('refuses %s with 400 VALIDATION_ERROR and changes nothing', async (_case, patch) => {
    const ws = await t.ctx.createWorkspace();
    const before = await Account.findByPk(ws.accountId, { raw: true });
    expectError(await http(t.api.baseUrl, 'PATCH', SETTINGS, { key: ws.secretKey, body: patch }), 400, 'VALIDATION_ERROR');
    expect(await Account.findByPk(ws.accountId, { raw: true })).toEqual(before);
  });

  it('refuses a publishable key with 403 FORBIDDEN', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await get(SETTINGS, ws.publishableKey), 403, 'FORBIDDEN');
    expectError(await http(t.api.baseUrl, 'PATCH', SETTINGS, { key: ws.publishableKey, body: { taxRateBps: 5 } }), 403, 'FORBIDDEN');
  });
});
