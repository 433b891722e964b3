import { QueryTypes } from 'sequelize';
import { appendLedgerEntry } from '../../db/ledger';
import { encodeCursor } from '../../db/cursor';
import { DEFAULT_CHECKOUT_LIFETIME_MS, MAX_CHECKOUT_LIFETIME_MS } from '../../domain/checkout/create';
import { newId } from '../../lib/ids';
import { workflowIds } from '../../workflows/messages';
import { insertCheckoutSessionRow, lineOf } from '../fixtures/checkout';
import { tenantOf } from '../fixtures/workspaces';
import { http, useTestApi, type HttpResult } from '../helpers/context';
import { createProduct } from '../helpers/discounts';
import { expectError } from '../helpers/expect';
import {
  CHECKOUT_SESSIONS,
  checkoutApiEnv,
  checkoutSnapshot,
  createSession,
  minimalSession,
  PUBLIC_BASE_URL,
  sessionRow,
  type CheckoutSessionDto,
} from '../helpers/checkout';

const t = useTestApi(checkoutApiEnv());

const ALL_METHODS = ['qris', 'va', 'card', 'ewallet', 'intl_wallet'];
const HOUR = 60 * 60 * 1000;

function expectNamesField(res: HttpResult, field: string) {
  const details = (res.body.error as { details?: Array<{ field?: string }> }).details ?? [];
  expect(details.map((d) => d.field)).toContain(field);
}

const post = (path: string, key: string, body?: unknown, headers?: Record<string, string>) =>
  http<{ data: Record<string, unknown> & CheckoutSessionDto; error: { code: string; message: string } | null }>(t.api.baseUrl, 'POST', path, { key, ...(body === undefined ? {} : { body }), headers });
const get = (path: string, key: string) => http<{ data: CheckoutSessionDto & CheckoutSessionDto[]; meta: { page: { nextCursor: string | null } } }>(t.api.baseUrl, 'GET', path, { key });

async function workflowStarts(accountId: string) {
  return t.ctx.sequelize.query<{ workflow_type: string; workflow_id: string; args: Record<string, unknown>; started_at: Date | null }>(
    'SELECT workflow_type, workflow_id, args, started_at FROM workflow_starts WHERE account_id = :accountId ORDER BY id',
    { type: QueryTypes.SELECT, replacements: { accountId } },
  );
}

describe('POST /v1/payment/checkout-sessions', () => {
  it('creates an open session with every field, records and starts its workflow', async () => {
    const ws = await t.ctx.createWorkspace();
    const productId = await createProduct(t.api.baseUrl, ws.secretKey, { name: 'Illustration pack', price: 50, currency: 'USD' });
    const expiresAt = new Date(Date.now() + 2 * HOUR);
    const res = await post(CHECKOUT_SESSIONS, ws.secretKey, {
      amount: 15_000,
      currency: 'USD',
      description: '  Illustration pack ×3  ',
      customerEmail: 'Buyer@Example.com',
      paymentMethods: ['va', 'qris'],
      productId,
      quantity: 3,
      successUrl: 'https://shop.example.com/thanks',
      cancelUrl: 'http://shop.example.com/cart',
      expiresAt: expiresAt.toISOString().replace('Z', '+00:00'),
      metadata: { orderRef: 'A-1', note: 'two\nlines' },
    });
    expect(res.status).toBe(201);
    const id = res.body.data.id;
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^cs_[0-9A-Z]{26}$/),
      accountId: ws.accountId,
      status: 'open',
      amount: 15_000,
      currency: 'USD',
      description: 'Illustration pack ×3',
      customerEmail: 'Buyer@Example.com',
      customerId: null,
      paymentMethods: ['va', 'qris'],
      paymentMethod: null,
      hostedUrl: `${PUBLIC_BASE_URL}/checkout/${id}`,
      successUrl: 'https://shop.example.com/thanks',
      cancelUrl: 'http://shop.example.com/cart',
      lineItems: [{ lineKey: '1', productId, variantId: null, name: 'Illustration pack', variantName: null, quantity: 3, unitAmount: 5_000, amount: 15_000 }],
      subtotal: 15_000,
      discountCode: null,
      discountAmount: 0,
      discountApplied: null,
      amountRefunded: 0,
      expiresAt: expiresAt.toISOString(),
      completedAt: null,
      metadata: { orderRef: 'A-1', note: 'two\nlines' },
      createdAt: expect.any(String),
    });
    expect((await get(`${CHECKOUT_SESSIONS}/${id}`, ws.secretKey)).body.data).toEqual(res.body.data);
    const [row] = await t.ctx.sequelize.query<{ source: string; environment: string }>('SELECT source, environment FROM checkout_sessions WHERE id = :id', {
      type: QueryTypes.SELECT,
      replacements: { id },
    });
    expect(row).toEqual({ source: 'api', environment: 'test' });

    // The durable start is recorded with the session and started right after commit.
    expect(await workflowStarts(ws.accountId)).toEqual([
      {
        workflow_type: 'checkoutSession',
        workflow_id: workflowIds.checkoutSession(id),
        args: { accountId: ws.accountId, environment: 'test', sessionId: id, expiresAt: expiresAt.toISOString() },
        started_at: expect.any(Date),
      },
    ]);
    const description = await t.ctx.temporal.workflow.getHandle(workflowIds.checkoutSession(id)).describe();
    expect(description.type).toBe('checkoutSession');
  });

  it('defaults to every payment method, a 24-hour lifetime, no lines, no URLs and empty metadata', async () => {
    const ws = await t.ctx.createWorkspace();
    const before = Date.now();
    const session = await createSession(t.api.baseUrl, ws.secretKey);
    expect(session).toMatchObject({
      status: 'open',
      amount: 150_000,
      currency: 'IDR',
      paymentMethods: ALL_METHODS,
      paymentMethod: null,
      lineItems: [],
      subtotal: 150_000,
      successUrl: null,
      cancelUrl: null,
      metadata: {},
    });
    const lifetime = Date.parse(session.expiresAt as string) - before;
    expect(lifetime).toBeGreaterThanOrEqual(DEFAULT_CHECKOUT_LIFETIME_MS);
    expect(lifetime).toBeLessThan(DEFAULT_CHECKOUT_LIFETIME_MS + 60_000);
    // An empty list means all of them too.
    expect((await createSession(t.api.baseUrl, ws.secretKey, { paymentMethods: [] })).paymentMethods).toEqual(ALL_METHODS);
  });

  it('forces one method with paymentMethod, alone or within paymentMethods; the method used stays null until paid', async () => {
    const ws = await t.ctx.createWorkspace();
    expect(await createSession(t.api.baseUrl, ws.secretKey, { paymentMethod: 'intl_wallet' })).toMatchObject({ paymentMethods: ['intl_wallet'], paymentMethod: null });
    expect(await createSession(t.api.baseUrl, ws.secretKey, { paymentMethods: ['qris', 'card'], paymentMethod: 'card' })).toMatchObject({
      paymentMethods: ['card'],
      paymentMethod: null,
    });
    expect(await createSession(t.api.baseUrl, ws.secretKey, { paymentMethods: [], paymentMethod: 'va' })).toMatchObject({ paymentMethods: ['va'] });
  });

  it('prices one unit of a product line at the amount when quantity is left out, and accepts every bound', async () => {
    const ws = await t.ctx.createWorkspace();
    const productId = await createProduct(t.api.baseUrl, ws.secretKey, { name: 'Ebook' });
    const session = await createSession(t.api.baseUrl, ws.secretKey, { productId, amount: 99_000 });
    expect(session.lineItems).toEqual([{ lineKey: '1', productId, variantId: null, name: 'Ebook', variantName: null, quantity: 1, unitAmount: 99_000, amount: 99_000 }]);
    await createSession(t.api.baseUrl, ws.secretKey, {
      amount: Number.MAX_SAFE_INTEGER,
      description: 'd'.repeat(500),
      customerEmail: `${'b'.repeat(64)}@${['d', 'd', 'd', 'c'].map((c) => c.repeat(63)).join('.')}`,
      paymentMethods: ALL_METHODS,
      successUrl: `https://example.com/${'p'.repeat(2048 - 20)}`,
      expiresAt: new Date(Date.now() + MAX_CHECKOUT_LIFETIME_MS - 60_000).toISOString(),
      metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${'k'.repeat(38)}${String(i).padStart(2, '0')}`, 'v'.repeat(500)])),
    });
    await createSession(t.api.baseUrl, ws.secretKey, { productId, amount: 10_000 * 7, quantity: 10_000 });
    await createSession(t.api.baseUrl, ws.secretKey, { expiresAt: new Date(Date.now() + 60_000).toISOString() });
  });

  describe('refusals: 400 VALIDATION_ERROR naming the field, nothing written', () => {
    interface Fixtures {
      productId: string;
      foreignProductId: string;
      liveProductId: string;
      unpublishedId: string;
      archivedId: string;
    }
    let ws: Awaited<ReturnType<typeof t.ctx.createWorkspace>>;
    let fx: Fixtures;
    beforeAll(async () => {
      ws = await t.ctx.createWorkspace();
      const other = await t.ctx.createWorkspace();
      const archivedId = await createProduct(t.api.baseUrl, ws.secretKey);
      await http(t.api.baseUrl, 'DELETE', `/api/v1/storefront/products/${archivedId}`, { key: ws.secretKey });
      fx = {
        productId: await createProduct(t.api.baseUrl, ws.secretKey),
        foreignProductId: await createProduct(t.api.baseUrl, other.secretKey),
        liveProductId: await createProduct(t.api.baseUrl, ws.liveSecretKey),
        unpublishedId: await createProduct(t.api.baseUrl, ws.secretKey, { published: false }),
        archivedId,
      };
    });

    const day = 24 * HOUR;
    const refusals: Array<[string, (fx: Fixtures) => Record<string, unknown>, string]> = [
      ['no amount', () => ({ amount: undefined }), 'amount'],
      ['amount 0', () => ({ amount: 0 }), 'amount'],
      ['a negative amount', () => ({ amount: -100 }), 'amount'],
      ['a fractional amount', () => ({ amount: 10.5 }), 'amount'],
      ['an amount as a string', () => ({ amount: '1000' }), 'amount'],
      ['an amount beyond 2^53 - 1', () => ({ amount: 2 ** 53 }), 'amount'],
      ['no currency', () => ({ currency: undefined }), 'currency'],
      ['a currency the service does not price in', () => ({ currency: 'EUR' }), 'currency'],
      ['a lowercase currency', () => ({ currency: 'idr' }), 'currency'],
      ['no description', () => ({ description: undefined }), 'description'],
      ['an empty description', () => ({ description: '' }), 'description'],
      ['a blank description', () => ({ description: '   ' }), 'description'],
      ['a description over 500', () => ({ description: 'd'.repeat(501) }), 'description'],
      ['a description with a line break', () => ({ description: 'two\nlines' }), 'description'],
      ['a description with NUL', () => ({ description: 'a\u0000b' }), 'description'],
      ['no customerEmail', () => ({ customerEmail: undefined }), 'customerEmail'],
      ['a customerEmail that is no address', () => ({ customerEmail: 'buyer.example.com' }), 'customerEmail'],
      ['a customerEmail over 320', () => ({ customerEmail: `${'b'.repeat(309)}@example.com` }), 'customerEmail'],
      ['a customerEmail with a line break', () => ({ customerEmail: 'buyer@example.com\nBcc: x@example.com' }), 'customerEmail'],
      ['an unknown payment method', () => ({ paymentMethods: ['qris', 'bitcoin'] }), 'paymentMethods.1'],
      ['a payment method twice', () => ({ paymentMethods: ['qris', 'qris'] }), 'paymentMethods'],
      ['paymentMethods that is no list', () => ({ paymentMethods: 'qris' }), 'paymentMethods'],
      ['an unknown forced method', () => ({ paymentMethod: 'cash' }), 'paymentMethod'],
      ['a forced method outside paymentMethods', () => ({ paymentMethods: ['qris', 'va'], paymentMethod: 'card' }), 'paymentMethod'],
      ['a product of another workspace', (f) => ({ productId: f.foreignProductId }), 'productId'],
      ['a product of the other environment', (f) => ({ productId: f.liveProductId }), 'productId'],
      ['an unpublished product', (f) => ({ productId: f.unpublishedId }), 'productId'],
      ['an archived product', (f) => ({ productId: f.archivedId }), 'productId'],
      ['an unknown product', () => ({ productId: newId('prod') }), 'productId'],
      ['an unknown variant', (f) => ({ productId: f.productId, variantId: newId('var') }), 'variantId'],
      ['a variant without a product', () => ({ variantId: newId('var') }), 'variantId'],
      ['a quantity without a product', () => ({ quantity: 2 }), 'quantity'],
      ['quantity 0', (f) => ({ productId: f.productId, quantity: 0 }), 'quantity'],
      ['a fractional quantity', (f) => ({ productId: f.productId, quantity: 1.5 }), 'quantity'],
      ['a quantity over 10000', (f) => ({ productId: f.productId, quantity: 10_001, amount: 10_001 }), 'quantity'],
      ['an amount that is not a multiple of quantity', (f) => ({ productId: f.productId, quantity: 3, amount: 1000 }), 'amount'],
      ['a successUrl that is no URL', () => ({ successUrl: 'thanks page' }), 'successUrl'],
      ['a successUrl of another scheme', () => ({ successUrl: 'javascript:alert(1)' }), 'successUrl'],
      ['a cancelUrl of another scheme', () => ({ cancelUrl: 'ftp://example.com/cart' }), 'cancelUrl'],
      ['a cancelUrl over 2048', () => ({ cancelUrl: `https://example.com/${'p'.repeat(2048)}` }), 'cancelUrl'],
      ['an expiresAt in the past', () => ({ expiresAt: new Date(Date.now() - 1000).toISOString() }), 'expiresAt'],
      ['an expiresAt more than 30 days out', () => ({ expiresAt: new Date(Date.now() + 30 * day + 60_000).toISOString() }), 'expiresAt'],
      ['an expiresAt without offset', () => ({ expiresAt: '2099-01-01T00:00:00' }), 'expiresAt'],
      ['an expiresAt that is no date', () => ({ expiresAt: 'tomorrow' }), 'expiresAt'],
      ['metadata with a number value', () => ({ metadata: { count: 1 } }), 'metadata.count'],
      ['metadata with 51 keys', () => ({ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }), 'metadata'],
      ['a metadata key over 40', () => ({ metadata: { ['k'.repeat(41)]: 'v' } }), `metadata.${'k'.repeat(41)}`],
      ['a metadata value over 500', () => ({ metadata: { note: 'v'.repeat(501) } }), 'metadata.note'],
      ['a __proto__ metadata key', () => ({ metadata: JSON.parse('{"__proto__":"x"}') as unknown }), 'metadata.__proto__'],
      ['metadata that is a list', () => ({ metadata: ['a'] }), 'metadata'],
      ['a status', () => ({ status: 'completed' }), 'status'],
      ['an accountId', () => ({ accountId: 'acc_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }), 'accountId'],
      ['an unknown field', () => ({ colour: 'red' }), 'colour'],
    ];

    it.each(refusals)('refuses %s', async (_name, change, field) => {
      const before = await checkoutSnapshot(t.ctx.sequelize, ws.accountId);
      const res = await post(CHECKOUT_SESSIONS, ws.secretKey, { ...minimalSession, ...change(fx) });
      expectError(res, 400, 'VALIDATION_ERROR');
      expectNamesField(res, field);
      expect(await checkoutSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
    });
  });

  it('refuses a publishable key (403) and no key (401)', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await post(CHECKOUT_SESSIONS, ws.publishableKey, minimalSession), 403, 'FORBIDDEN');
    expectError(await http(t.api.baseUrl, 'POST', CHECKOUT_SESSIONS, { body: minimalSession }), 401, 'AUTHENTICATION_REQUIRED');
    expect((await checkoutSnapshot(t.ctx.sequelize, ws.accountId)).checkout_sessions).toEqual([]);
  });

  it('replays the same Idempotency-Key and body as the same session, and refuses another body under it with 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const ws = await t.ctx.createWorkspace();
    const headers = { 'idempotency-key': 'order-42' };
    const first = await post(CHECKOUT_SESSIONS, ws.secretKey, minimalSession, headers);
    expect(first.status).toBe(201);
    // The same body with its keys in another order is the same request.
    const again = await post(CHECKOUT_SESSIONS, ws.secretKey, Object.fromEntries(Object.entries(minimalSession).reverse()), headers);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    const after = await checkoutSnapshot(t.ctx.sequelize, ws.accountId);
    expect(after.checkout_sessions).toHaveLength(1);
    expect(after.workflow_starts).toHaveLength(1);

    expectError(await post(CHECKOUT_SESSIONS, ws.secretKey, { ...minimalSession, amount: 1 }, headers), 409, 'IDEMPOTENCY_KEY_REUSED');
    expect(await checkoutSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(after);
    // Keys are per environment: the live key's same key is a new request.
    expect((await post(CHECKOUT_SESSIONS, ws.liveSecretKey, { ...minimalSession, amount: 1 }, headers)).status).toBe(201);
  });
});

describe('GET /v1/payment/checkout-sessions', () => {
  it('lists newest first in cursor pages, filters by status, and sees only its own workspace and environment', async () => {
    const ws = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    const created: string[] = [];
    for (let i = 0; i < 5; i += 1) created.push((await createSession(t.api.baseUrl, ws.secretKey, { amount: 1000 + i })).id);
    await createSession(t.api.baseUrl, ws.liveSecretKey);
    await createSession(t.api.baseUrl, other.secretKey);
    const completed = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'completed' });
    const review = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'pending_review' });

    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`${CHECKOUT_SESSIONS}?limit=3${cursor ? `&cursor=${cursor}` : ''}`, ws.secretKey);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(3);
      for (const session of res.body.data) expect(session.accountId).toBe(ws.accountId);
      ids.push(...res.body.data.map((s) => s.id));
      cursor = res.body.meta.page.nextCursor;
    } while (cursor);
    expect(ids).toEqual([review.id, completed.id, ...[...created].reverse()]);

    const byStatus = async (status: string) => (await get(`${CHECKOUT_SESSIONS}?status=${status}`, ws.secretKey)).body.data.map((s) => s.id);
    expect(await byStatus('open')).toEqual([...created].reverse());
    expect(await byStatus('completed')).toEqual([completed.id]);
    expect(await byStatus('pending_review')).toEqual([review.id]);
    expect(await byStatus('expired')).toEqual([]);
    expect(await byStatus('failed')).toEqual([]);
    // Amounts are numbers in lists too (bigint columns).
    expect((await get(`${CHECKOUT_SESSIONS}?limit=1&status=open`, ws.secretKey)).body.data[0]).toMatchObject({ amount: 1004, amountRefunded: 0, discountAmount: 0 });
  });

  it('refuses an unknown status, a bad limit and a cursor of another resource with 400', async () => {
    const ws = await t.ctx.createWorkspace();
    for (const query of ['?status=paid', '?status=OPEN', '?limit=ten', `?cursor=${encodeCursor(newId('prod'))}`]) {
      expectError(await get(`${CHECKOUT_SESSIONS}${query}`, ws.secretKey), 400, 'VALIDATION_ERROR');
    }
  });
});

describe('GET /v1/payment/checkout-sessions/:id', () => {
  it('answers 404 RESOURCE_NOT_FOUND for an unknown id, another workspace’s and the other environment’s', async () => {
    const ws = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    const session = await createSession(t.api.baseUrl, ws.secretKey);
    for (const [key, id] of [
      [ws.secretKey, newId('cs')],
      [ws.secretKey, 'not-an-id'],
      [other.secretKey, session.id],
      [ws.liveSecretKey, session.id],
    ] as const) {
      expectError(await get(`${CHECKOUT_SESSIONS}/${id}`, key), 404, 'RESOURCE_NOT_FOUND');
    }
  });
});

describe('POST /v1/payment/checkout-sessions/:id/confirm', () => {
  it('completes a pending_review session and records the completion start of its workflow', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'pending_review' });
    const before = Date.now();
    const res = await post(`${CHECKOUT_SESSIONS}/${session.id}/confirm`, ws.secretKey);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: session.id, accountId: ws.accountId, status: 'completed', paymentMethod: 'va' });
    expect(Date.parse(res.body.data.completedAt as string)).toBeGreaterThanOrEqual(before - 1000);
    const row = await sessionRow(t.ctx.sequelize, session.id);
    expect(row).toMatchObject({ status: 'completed', completed_at: expect.any(Date) });
    const starts = await workflowStarts(ws.accountId);
    expect(starts.map((s) => [s.workflow_type, s.workflow_id])).toEqual([
      ['checkoutSession', workflowIds.checkoutSession(session.id)],
      ['checkoutCompleted', workflowIds.checkoutSession(session.id)],
    ]);
    expect(starts[1]!.args).toEqual({ accountId: ws.accountId, environment: 'test', sessionId: session.id, expiresAt: session.expiresAt.toISOString() });
  });

  it.each(['open', 'completed', 'expired', 'failed'] as const)('refuses a %s session with 409 INVALID_STATE naming its status, nothing written', async (status) => {
    const ws = await t.ctx.createWorkspace();
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status });
    const before = await checkoutSnapshot(t.ctx.sequelize, ws.accountId);
    const res = await post(`${CHECKOUT_SESSIONS}/${session.id}/confirm`, ws.secretKey);
    expectError(res, 409, 'INVALID_STATE');
    expect((res.body.error as { message: string }).message).toContain(status);
    expect(await checkoutSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('answers 404 for an unknown session', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await post(`${CHECKOUT_SESSIONS}/${newId('cs')}/confirm`, ws.secretKey), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('the session state machine through the API', () => {
  it('open → pending_review (buyer pays, no key) → completed (merchant confirms) → refunded in part', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await createSession(t.api.baseUrl, ws.secretKey, { paymentMethods: ['va', 'qris'] });
    const paid = await http<{ data: { status: string; redirectUrl: string; checkoutSession: { status: string } } }>(t.api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${session.id}/pay`, {
      body: { paymentMethod: 'va' },
    });
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ status: 'pending_review', redirectUrl: session.hostedUrl, checkoutSession: { status: 'pending_review' } });
    expect((await get(`${CHECKOUT_SESSIONS}/${session.id}`, ws.secretKey)).body.data).toMatchObject({ status: 'pending_review', paymentMethod: 'va', completedAt: null });
    // Paying again is a state conflict.
    expectError(await http(t.api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${session.id}/pay`, { body: { paymentMethod: 'va' } }), 409, 'INVALID_STATE');

    const confirmed = await post(`${CHECKOUT_SESSIONS}/${session.id}/confirm`, ws.secretKey);
    expect(confirmed.body.data).toMatchObject({ status: 'completed', paymentMethod: 'va', completedAt: expect.any(String) });
    expectError(await post(`${CHECKOUT_SESSIONS}/${session.id}/confirm`, ws.secretKey), 409, 'INVALID_STATE');

    const refund = await post(`${CHECKOUT_SESSIONS}/${session.id}/refund`, ws.secretKey, { amount: 50_000 });
    expect(refund.status).toBe(200);
    expect((await get(`${CHECKOUT_SESSIONS}/${session.id}`, ws.secretKey)).body.data).toMatchObject({ status: 'completed', amountRefunded: 50_000 });
  });
});

describe('POST /v1/payment/checkout-sessions/:id/refund', () => {
  async function ledgerOf(accountId: string) {
    return t.ctx.sequelize.query<{ type: string; source_id: string; checkout_session_id: string; currency: string; pending_delta: string; available_delta: string }>(
      `SELECT type, source_id, checkout_session_id, currency, pending_delta, available_delta FROM balance_transactions WHERE account_id = :accountId ORDER BY id`,
      { type: QueryTypes.SELECT, replacements: { accountId } },
    );
  }

  async function balanceOf(accountId: string) {
    return t.ctx.sequelize.query<{ currency: string; pending: string; available: string }>(
      'SELECT currency, pending, available FROM balances WHERE account_id = :accountId ORDER BY currency',
      { type: QueryTypes.SELECT, replacements: { accountId } },
    );
  }

  /** What the fulfillment's credit step writes: the session's amount into pending. */
  async function credit(owner: { accountId: string }, sessionId: string, amount: number, currency = 'USD') {
    await t.ctx.sequelize.transaction((tx) =>
      appendLedgerEntry(tx, tenantOf(owner), { id: newId('txn'), type: 'checkout_credit', sourceId: sessionId, checkoutSessionId: sessionId, currency, pendingDelta: amount, availableDelta: 0 }),
    );
  }

  it('refunds what is left by default: the refund row, amountRefunded, a ledger debit from the session’s pending credit, an audit entry', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'completed', lineItems: [lineOf(newId('prod'), 5000)] });
    await credit(ws, session.id, 5000);
    const res = await post(`${CHECKOUT_SESSIONS}/${session.id}/refund`, ws.secretKey, { reason: 'requested by the buyer' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^re_[0-9A-Z]{26}$/),
      accountId: ws.accountId,
      checkoutSessionId: session.id,
      amount: 5000,
      currency: 'USD',
      reason: 'requested by the buyer',
      status: 'succeeded',
      createdAt: expect.any(String),
      checkoutSession: expect.objectContaining({ id: session.id, accountId: ws.accountId, status: 'completed', amount: 5000, amountRefunded: 5000 }),
    });
    const refundId = res.body.data.id;
    const [refundRow] = await t.ctx.sequelize.query('SELECT checkout_session_id, amount, currency, reason, environment FROM checkout_refunds WHERE id = :id', {
      type: QueryTypes.SELECT,
      replacements: { id: refundId },
    });
    expect(refundRow).toEqual({ checkout_session_id: session.id, amount: '5000', currency: 'USD', reason: 'requested by the buyer', environment: 'test' });
    expect((await sessionRow(t.ctx.sequelize, session.id)).refunded_amount).toBe('5000');
    expect((await ledgerOf(ws.accountId)).at(-1)).toEqual({
      type: 'refund',
      source_id: refundId,
      checkout_session_id: session.id,
      currency: 'USD',
      pending_delta: '-5000',
      available_delta: '0',
    });
    expect(await balanceOf(ws.accountId)).toEqual([{ currency: 'USD', pending: '0', available: '0' }]);
    const [auditRow] = await t.ctx.sequelize.query<{ action: string; target_id: string; data: Record<string, unknown> }>(
      `SELECT action, target_id, data FROM audit_logs WHERE account_id = :accountId AND action = 'checkout_session.refunded'`,
      { type: QueryTypes.SELECT, replacements: { accountId: ws.accountId } },
    );
    expect(auditRow).toEqual({ action: 'checkout_session.refunded', target_id: session.id, data: { refundId, amount: 5000, currency: 'USD' } });
  });

  it('takes partial refunds from pending while the session’s credit is pending, then from available (which may go negative)', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'completed', lineItems: [lineOf(newId('prod'), 10_000)] });
    await credit(ws, session.id, 10_000);
    expect((await post(`${CHECKOUT_SESSIONS}/${session.id}/refund`, ws.secretKey, { amount: 2000 })).body.data).toMatchObject({ amount: 2000, reason: null });
    // Settlement moves 5000 of the session's remaining 8000 to available.
    await t.ctx.sequelize.transaction((tx) =>
      appendLedgerEntry(tx, tenantOf(ws), { id: newId('txn'), type: 'settlement', sourceId: `${session.id}:1`, checkoutSessionId: session.id, currency: 'USD', pendingDelta: -5000, availableDelta: 5000 }),
    );
    // 3000 still pending: a 4000 refund takes it all and 1000 from available.
    expect((await post(`${CHECKOUT_SESSIONS}/${session.id}/refund`, ws.secretKey, { amount: 4000 })).status).toBe(200);
    // Nothing pending: the rest (4000) comes from available.
    const last = await post(`${CHECKOUT_SESSIONS}/${session.id}/refund`, ws.secretKey, {});
    expect(last.body.data).toMatchObject({ amount: 4000, checkoutSession: { amountRefunded: 10_000 } });
    expect((await ledgerOf(ws.accountId)).filter((e) => e.type === 'refund').map((e) => [e.pending_delta, e.available_delta])).toEqual([
      ['-2000', '0'],
      ['-3000', '-1000'],
      ['0', '-4000'],
    ]);
    expect(await balanceOf(ws.accountId)).toEqual([{ currency: 'USD', pending: '0', available: '0' }]);

    // A session refunded before its credit landed: all from available, which goes negative until later credits.
    const early = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'completed', currency: 'IDR', lineItems: [lineOf(newId('prod'), 70_000)] });
    expect((await post(`${CHECKOUT_SESSIONS}/${early.id}/refund`, ws.secretKey, { amount: 30_000 })).body.data).toMatchObject({ amount: 30_000, currency: 'IDR' });
    expect(await balanceOf(ws.accountId)).toEqual([
      { currency: 'IDR', pending: '0', available: '-30000' },
      { currency: 'USD', pending: '0', available: '0' },
    ]);
  });

  it('refuses more than is left with 400 VALIDATION_ERROR, and a fully refunded session with 409 INVALID_STATE, writing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'completed', lineItems: [lineOf(newId('prod'), 5000)] });
    const url = `${CHECKOUT_SESSIONS}/${session.id}/refund`;
    let before = await checkoutSnapshot(t.ctx.sequelize, ws.accountId);
    const over = await post(url, ws.secretKey, { amount: 5001 });
    expectError(over, 400, 'VALIDATION_ERROR');
    expectNamesField(over, 'amount');
    expect(await checkoutSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);

    expect((await post(url, ws.secretKey, { amount: 4000 })).status).toBe(200);
    before = await checkoutSnapshot(t.ctx.sequelize, ws.accountId);
    expectError(await post(url, ws.secretKey, { amount: 1001 }), 400, 'VALIDATION_ERROR');
    expect(await checkoutSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);

    expect((await post(url, ws.secretKey, { amount: 1000 })).status).toBe(200);
    before = await checkoutSnapshot(t.ctx.sequelize, ws.accountId);
    for (const body of [{}, { amount: 1 }]) {
      const res = await post(url, ws.secretKey, body);
      expectError(res, 409, 'INVALID_STATE');
      expect((res.body.error as { message: string }).message).toContain('fully refunded');
    }
    expect(await checkoutSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it.each(['open', 'pending_review', 'expired', 'failed'] as const)('refuses a %s session with 409 INVALID_STATE naming its status, nothing written', async (status) => {
    const ws = await t.ctx.createWorkspace();
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status });
    const before = await checkoutSnapshot(t.ctx.sequelize, ws.accountId);
    const res = await post(`${CHECKOUT_SESSIONS}/${session.id}/refund`, ws.secretKey, {});
    expectError(res, 409, 'INVALID_STATE');
    expect((res.body.error as { message: string }).message).toContain(`is ${status}`);
    expect(await checkoutSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it.each([
    ['amount 0', { amount: 0 }, 'amount'],
    ['a negative amount', { amount: -5 }, 'amount'],
    ['a fractional amount', { amount: 1.5 }, 'amount'],
    ['an empty reason', { reason: '' }, 'reason'],
    ['a reason over 500', { reason: 'r'.repeat(501) }, 'reason'],
    ['an unknown field', { currency: 'USD' }, 'currency'],
  ])('refuses %s with 400 VALIDATION_ERROR, nothing written', async (_name, body, field) => {
    const ws = await t.ctx.createWorkspace();
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'completed' });
    const before = await checkoutSnapshot(t.ctx.sequelize, ws.accountId);
    const res = await post(`${CHECKOUT_SESSIONS}/${session.id}/refund`, ws.secretKey, body);
    expectError(res, 400, 'VALIDATION_ERROR');
    expectNamesField(res, field);
    expect(await checkoutSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('never refunds more than the amount under concurrent refunds', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'completed', lineItems: [lineOf(newId('prod'), 10_000)] });
    await credit(ws, session.id, 10_000);
    const results = await Promise.all(Array.from({ length: 10 }, () => post(`${CHECKOUT_SESSIONS}/${session.id}/refund`, ws.secretKey, { amount: 3000 })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 400, 400, 400, 400, 400, 400, 400]);
    for (const res of results.filter((r) => r.status !== 200)) expectError(res, 400, 'VALIDATION_ERROR');
    const snapshot = await checkoutSnapshot(t.ctx.sequelize, ws.accountId);
    expect(snapshot.checkout_refunds).toHaveLength(3);
    expect((await sessionRow(t.ctx.sequelize, session.id)).refunded_amount).toBe('9000');
    const refunds = (await ledgerOf(ws.accountId)).filter((e) => e.type === 'refund');
    expect(refunds.reduce((sum, e) => sum + Number(e.pending_delta) + Number(e.available_delta), 0)).toBe(-9000);
    expect(await balanceOf(ws.accountId)).toEqual([{ currency: 'USD', pending: '1000', available: '0' }]);

    // Ten concurrent full refunds of another session: exactly one lands.
    const other = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'completed', lineItems: [lineOf(newId('prod'), 4000)] });
    const full = await Promise.all(Array.from({ length: 10 }, () => post(`${CHECKOUT_SESSIONS}/${other.id}/refund`, ws.secretKey, {})));
    expect(full.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    expect((await sessionRow(t.ctx.sequelize, other.id)).refunded_amount).toBe('4000');
  });

  it('refunds once when a request is retried under its Idempotency-Key', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'completed', lineItems: [lineOf(newId('prod'), 5000)] });
    const headers = { 'idempotency-key': 'refund-1' };
    const first = await post(`${CHECKOUT_SESSIONS}/${session.id}/refund`, ws.secretKey, { amount: 1000 }, headers);
    const retry = await post(`${CHECKOUT_SESSIONS}/${session.id}/refund`, ws.secretKey, { amount: 1000 }, headers);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data.id).toBe(first.body.data.id);
    expect((await sessionRow(t.ctx.sequelize, session.id)).refunded_amount).toBe('1000');
    expect((await checkoutSnapshot(t.ctx.sequelize, ws.accountId)).checkout_refunds).toHaveLength(1);
  });

  it('answers 404 for an unknown session', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await post(`${CHECKOUT_SESSIONS}/${newId('cs')}/refund`, ws.secretKey, {}), 404, 'RESOURCE_NOT_FOUND');
  });
});
