import { randomBytes } from 'node:crypto';
import { newId } from '../../lib/ids';
import { insertCheckoutSessionRow, lineOf } from '../fixtures/checkout';
import { http, useTestApi } from '../helpers/context';
import { createProduct } from '../helpers/discounts';
import { expectError } from '../helpers/expect';
import { CHECKOUT_SESSIONS, checkoutApiEnv, checkoutSnapshot, createSession, PUBLIC_BASE_URL, sessionRow } from '../helpers/checkout';

// The buyer's routes of a checkout session: no key, the session id is the capability.

const t = useTestApi(checkoutApiEnv());

type Envelope = { data: Record<string, unknown> & { status: string }; error: { code: string; message: string } | null };

const publicView = (id: string) => http<Envelope>(t.api.baseUrl, 'GET', `${CHECKOUT_SESSIONS}/${id}/public`);
const pay = (id: string, body: unknown) => http<Envelope>(t.api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${id}/pay`, { body });
const storeCookies = (id: string, body: unknown) => http<Envelope>(t.api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${id}/pixel-cookies`, { body });

async function brandedWorkspace() {
  const ws = await t.ctx.createWorkspace();
  const res = await http(t.api.baseUrl, 'PATCH', '/api/v1/account/storefront', {
    key: ws.secretKey,
    body: {
      name: 'Acme Prints',
      brandColor: '#112233',
      brandLogo: 'https://cdn.example.com/logo.png',
      manualPayment: { bankName: 'Bank Example', accountNumber: '123-456-789', accountHolder: 'PT Acme', instructions: 'Put the session id in the transfer note.' },
    },
  });
  expect(res.status).toBe(200);
  return ws;
}

const MANUAL_PAYMENT = { bankName: 'Bank Example', accountNumber: '123-456-789', accountHolder: 'PT Acme', instructions: 'Put the session id in the transfer note.' };

describe('GET /v1/payment/checkout-sessions/:id/public', () => {
  it('answers exactly the buyer-safe fields: no workspace id, metadata, customer record, full e-mail, cookies or refunds', async () => {
    const ws = await brandedWorkspace();
    const productId = await createProduct(t.api.baseUrl, ws.secretKey, { name: 'Poster', price: 20, currency: 'USD' });
    const session = await createSession(t.api.baseUrl, ws.secretKey, {
      amount: 6000,
      currency: 'USD',
      description: 'Two posters',
      customerEmail: 'jane.buyer@example.com',
      productId,
      quantity: 2,
      paymentMethods: ['qris', 'card'],
      successUrl: 'https://acme.example/thanks',
      cancelUrl: 'https://acme.example/cart',
      metadata: { internalRef: 'SECRET-REF-77' },
    });
    await storeCookies(session.id, { clickId: 'fb.1.1700000000.AbCdEf', browserId: 'fb.1.1700000000.123456' });
    const res = await publicView(session.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: session.id,
      environment: 'test',
      status: 'open',
      amount: 6000,
      currency: 'USD',
      description: 'Two posters',
      lineItems: [{ name: 'Poster', quantity: 2, unitAmount: 3000, amount: 6000 }],
      subtotal: 6000,
      discountCode: null,
      discountAmount: 0,
      customerEmailMasked: 'j***@example.com',
      paymentMethods: ['qris', 'card'],
      paymentMethod: null,
      expiresAt: session.expiresAt,
      completedAt: null,
      successUrl: 'https://acme.example/thanks',
      cancelUrl: 'https://acme.example/cart',
      merchant: { name: 'Acme Prints', slug: expect.any(String), brandColor: '#112233', brandLogo: 'https://cdn.example.com/logo.png' },
      manualPayment: null,
    });
    for (const secret of [ws.accountId, 'SECRET-REF-77', 'jane.buyer', 'AbCdEf', productId, '123-456-789']) expect(res.text).not.toContain(secret);
    // No key is needed, and none is asked for; the response is not a merchant object.
    expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
  });

  it('shows the merchant’s transfer instructions only while a local-mode payment awaits confirmation', async () => {
    const ws = await brandedWorkspace();
    const session = await createSession(t.api.baseUrl, ws.secretKey);
    expect((await publicView(session.id)).body.data.manualPayment).toBeNull();
    expect((await pay(session.id, { paymentMethod: 'va' })).status).toBe(200);
    expect((await publicView(session.id)).body.data).toMatchObject({ status: 'pending_review', paymentMethod: 'va', manualPayment: MANUAL_PAYMENT });
    expect((await http(t.api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${session.id}/confirm`, { key: ws.secretKey })).status).toBe(200);
    expect((await publicView(session.id)).body.data).toMatchObject({ status: 'completed', completedAt: expect.any(String), manualPayment: null });
  });

  it('reads an open session past its expiresAt as expired', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { expiresAt: new Date(Date.now() - 1000) });
    expect((await publicView(session.id)).body.data.status).toBe('expired');
    expect((await sessionRow(t.ctx.sequelize, session.id)).status).toBe('open');
    // The merchant reads the stored status until the workflow writes `expired`.
    expect((await http<Envelope>(t.api.baseUrl, 'GET', `${CHECKOUT_SESSIONS}/${session.id}`, { key: ws.secretKey })).body.data.status).toBe('open');
  });

  it('serves sessions of either environment without a key (a cs_ id is global), and 404 for an unknown id', async () => {
    const ws = await t.ctx.createWorkspace();
    const live = await createSession(t.api.baseUrl, ws.liveSecretKey);
    expect((await publicView(live.id)).body.data).toMatchObject({ id: live.id, environment: 'live' });
    expectError(await publicView(newId('cs')), 404, 'RESOURCE_NOT_FOUND');
    expectError(await publicView(newId('prod')), 404, 'RESOURCE_NOT_FOUND');
    expectError(await publicView('cs_%00'), 400, 'VALIDATION_ERROR');
  });
});

describe('POST /v1/payment/checkout-sessions/:id/pay', () => {
  it('records the method and moves the session to pending_review, answering where the buyer goes next', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await createSession(t.api.baseUrl, ws.secretKey, { paymentMethods: ['qris', 'ewallet'] });
    const res = await pay(session.id, { paymentMethod: 'ewallet' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      status: 'pending_review',
      redirectUrl: `${PUBLIC_BASE_URL}/checkout/${session.id}`,
      checkoutSession: expect.objectContaining({ id: session.id, status: 'pending_review', paymentMethod: 'ewallet', manualPayment: expect.any(Object) }),
    });
    expect(res.text).not.toContain(ws.accountId);
    expect(await sessionRow(t.ctx.sequelize, session.id)).toMatchObject({ status: 'pending_review', payment_method: 'ewallet', paid_at: expect.any(Date), completed_at: null });
  });

  it('takes the only allowed method when the body leaves it out, and asks for one when there are several', async () => {
    const ws = await t.ctx.createWorkspace();
    const forced = await createSession(t.api.baseUrl, ws.secretKey, { paymentMethod: 'intl_wallet' });
    expect((await pay(forced.id, {})).body.data).toMatchObject({ status: 'pending_review', checkoutSession: { paymentMethod: 'intl_wallet' } });
    const several = await createSession(t.api.baseUrl, ws.secretKey);
    const before = await checkoutSnapshot(t.ctx.sequelize, ws.accountId);
    const res = await pay(several.id, {});
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error!.message).toContain('paymentMethod');
    expect(await checkoutSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('refuses a method outside the allowed set, an unknown method and an unknown field with 400, changing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await createSession(t.api.baseUrl, ws.secretKey, { paymentMethods: ['qris'] });
    const before = await checkoutSnapshot(t.ctx.sequelize, ws.accountId);
    for (const body of [{ paymentMethod: 'card' }, { paymentMethod: 'cash' }, { paymentMethod: 'qris', amount: 1 }, { paymentMethod: null }]) {
      expectError(await pay(session.id, body), 400, 'VALIDATION_ERROR');
    }
    expect(await checkoutSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it.each(['pending_review', 'completed', 'expired', 'failed'] as const)('refuses a %s session with 409 INVALID_STATE, changing nothing', async (status) => {
    const ws = await t.ctx.createWorkspace();
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status });
    const before = await checkoutSnapshot(t.ctx.sequelize, ws.accountId);
    const res = await pay(session.id, { paymentMethod: 'qris' });
    expectError(res, 409, 'INVALID_STATE');
    expect(res.body.error!.message).toContain(status);
    expect(await checkoutSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('refuses an open session whose expiresAt passed (before its workflow expired it) with 409', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { expiresAt: new Date(Date.now() - 1000) });
    const before = await checkoutSnapshot(t.ctx.sequelize, ws.accountId);
    expectError(await pay(session.id, { paymentMethod: 'qris' }), 409, 'INVALID_STATE');
    expect(await checkoutSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('lets exactly one of concurrent payments through', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { lineItems: [lineOf(newId('prod'))] });
    const results = await Promise.all(['qris', 'va', 'card', 'ewallet', 'intl_wallet'].map((paymentMethod) => pay(session.id, { paymentMethod })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    const winner = results.find((r) => r.status === 200)!.body.data as unknown as { checkoutSession: { paymentMethod: string } };
    expect((await sessionRow(t.ctx.sequelize, session.id)).payment_method).toBe(winner.checkoutSession.paymentMethod);
  });

  it('answers 404 for an unknown session', async () => {
    expectError(await pay(newId('cs'), { paymentMethod: 'qris' }), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('POST /v1/payment/checkout-sessions/:id/pixel-cookies', () => {
  it('stores the two values (204), each alone overwriting only its own', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await createSession(t.api.baseUrl, ws.secretKey);
    const res = await storeCookies(session.id, { clickId: 'fb.1.1700000000000.IwAR0abc', browserId: 'fb.1.1700000000000.987654321' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await sessionRow(t.ctx.sequelize, session.id)).toMatchObject({ click_id: 'fb.1.1700000000000.IwAR0abc', browser_id: 'fb.1.1700000000000.987654321' });
    expect((await storeCookies(session.id, { browserId: 'x'.repeat(255) })).status).toBe(204);
    expect(await sessionRow(t.ctx.sequelize, session.id)).toMatchObject({ click_id: 'fb.1.1700000000000.IwAR0abc', browser_id: 'x'.repeat(255) });
  });

  it.each(['pending_review', 'completed'] as const)('accepts them on a %s session', async (status) => {
    const ws = await t.ctx.createWorkspace();
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status });
    expect((await storeCookies(session.id, { clickId: 'ttclid-E.C.P.abc' })).status).toBe(204);
    expect((await sessionRow(t.ctx.sequelize, session.id)).click_id).toBe('ttclid-E.C.P.abc');
  });

  it.each([
    ['an empty body', {}],
    ['a value over 255', { clickId: 'c'.repeat(256) }],
    ['an empty value', { browserId: '' }],
    ['a value with a space', { clickId: 'fb.1 abc' }],
    ['a value with a control character', { clickId: 'fb.1\u0000abc' }],
    ['a value outside ASCII', { browserId: 'fb.1.é' }],
    ['a number', { clickId: 12345 }],
    ['a provider-specific name', { fbp: 'fb.1.1700000000000.987654321' }],
  ])('refuses %s with 400 VALIDATION_ERROR, storing nothing', async (_name, body) => {
    const ws = await t.ctx.createWorkspace();
    const session = await createSession(t.api.baseUrl, ws.secretKey);
    const before = await checkoutSnapshot(t.ctx.sequelize, ws.accountId);
    expectError(await storeCookies(session.id, body), 400, 'VALIDATION_ERROR');
    expect(await checkoutSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('refuses an expired or failed session, and an open one past its deadline, with 409; 404 for an unknown one', async () => {
    const ws = await t.ctx.createWorkspace();
    const sessions = [
      await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'expired' }),
      await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'failed' }),
      await insertCheckoutSessionRow(t.ctx.sequelize, ws, { expiresAt: new Date(Date.now() - 1000) }),
    ];
    const before = await checkoutSnapshot(t.ctx.sequelize, ws.accountId);
    for (const session of sessions) expectError(await storeCookies(session.id, { clickId: 'abc' }), 409, 'INVALID_STATE');
    expect(await checkoutSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
    expectError(await storeCookies(newId('cs'), { clickId: 'abc' }), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('the per-IP public limit', () => {
  const limited = useTestApi({ ...checkoutApiEnv(), PUBLIC_RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: '1' });

  it('holds the three buyer routes to one budget per client IP', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await createSession(t.api.baseUrl, ws.secretKey);
    // An address of the documentation range no other test uses, believed through the one trusted proxy hop.
    const headers = { 'x-forwarded-for': `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}` };
    const call = (method: string, path: string, body?: unknown) =>
      http(limited.api.baseUrl, method, `${CHECKOUT_SESSIONS}/${session.id}/${path}`, { headers, ...(body === undefined ? {} : { body }) });
    expect((await call('GET', 'public')).status).toBe(200);
    expect((await call('POST', 'pixel-cookies', { clickId: 'abc' })).status).toBe(204);
    expect((await call('POST', 'pay', { paymentMethod: 'qris' })).status).toBe(200);
    const refused = await call('GET', 'public');
    expectError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expectError(await call('POST', 'pay', { paymentMethod: 'qris' }), 429, 'RATE_LIMITED');
  });
});
