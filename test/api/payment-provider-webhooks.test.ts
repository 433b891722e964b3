import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { CheckoutSession, Payout } from '../../db/models';
import { requireEncryptionKey } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import type { PaymentSandbox } from '../../lib/payment-provider/sandbox';
import { insertCheckoutSessionRow } from '../fixtures/checkout';
import { insertPayoutRow } from '../fixtures/payouts';
import { tenantOf } from '../fixtures/workspaces';
import { createTestContext, type TestApi, type TestContext } from '../helpers/context';
import { SANDBOX_LIVE, SANDBOX_TEST, sandboxEnv, startTestSandbox } from '../helpers/payment-sandbox';

// The one inbound route of provider callbacks: token, timestamp, replay, body size, unknown types, and the
// workspace found only through our own stored provider ids. Every refusal changes nothing.

let ctx: TestContext;
let api: TestApi;
let sandbox: PaymentSandbox;
const URL_PATH = '/api/v1/payment/provider-webhooks';

beforeAll(async () => {
  sandbox = await startTestSandbox();
  ctx = await createTestContext();
  api = await ctx.startApi({ ...sandboxEnv(sandbox.baseUrl), TEMPORAL_TASK_QUEUE: `provider-webhooks-${randomUUID()}` });
});
afterAll(async () => {
  await ctx.close();
  await sandbox.close();
});

type Answer = { data: { received: true; eventId: string; outcome: string }; error: { code: string } };

async function post(body: unknown, headers: Record<string, string>): Promise<{ status: number; json(): Promise<Answer> }> {
  const res = await fetch(`${api.baseUrl}${URL_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, json: async () => (await res.json()) as Answer };
}

const signed = (token: string, webhookId = randomUUID()) => ({ 'x-callback-token': token, 'webhook-id': webhookId });

function invoicePaid(session: CheckoutSession, overrides: Record<string, unknown> = {}) {
  const at = new Date().toISOString();
  return {
    id: session.providerInvoiceId,
    external_id: session.id,
    user_id: 'sandbox-user-1',
    status: 'PAID',
    amount: session.amount / 100,
    paid_amount: session.amount / 100,
    currency: session.currency,
    payment_method: 'CREDIT_CARD',
    payment_channel: 'CREDIT_CARD',
    paid_at: at,
    created: at,
    updated: at,
    ...overrides,
  };
}

async function providerSession(owner: { accountId: string; environment?: 'test' | 'live' }) {
  const session = await insertCheckoutSessionRow(ctx.sequelize, owner, { amount: 25_00, subtotal: 25_00, currency: 'USD' });
  await session.update({ backend: 'provider', providerInvoiceId: randomUUID().replace(/-/g, '').slice(0, 24), providerInvoiceUrl: `${sandbox.baseUrl}/web/x` });
  return session;
}

async function receivedEvents(): Promise<number> {
  const [row] = await ctx.sequelize.query<{ n: string }>('SELECT count(*) AS n FROM payment_provider_events', { type: QueryTypes.SELECT });
  return Number(row!.n);
}

async function completionStarts(sessionId: string): Promise<number> {
  const [row] = await ctx.sequelize.query<{ n: string }>(`SELECT count(*) AS n FROM workflow_starts WHERE workflow_type = 'checkoutCompleted' AND args->>'sessionId' = $1`, {
    bind: [sessionId],
    type: QueryTypes.SELECT,
  });
  return Number(row!.n);
}

describe('POST /v1/payment/provider-webhooks', () => {
  it('completes the session a paid invoice callback names, once; the same event again is a duplicate that changes nothing', async () => {
    const ws = await ctx.createWorkspace();
    const session = await providerSession(ws);
    const headers = signed(SANDBOX_TEST.callbackToken);
    const res = await post(invoicePaid(session), headers);
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({ received: true, eventId: headers['webhook-id'], outcome: 'applied' });
    const done = await CheckoutSession.findByPk(session.id);
    expect(done).toMatchObject({ status: 'completed', paymentMethod: 'card' });
    expect(await completionStarts(session.id)).toBe(1);

    const again = await post(invoicePaid(session), headers);
    expect(again.status).toBe(200);
    expect((await again.json()).data.outcome).toBe('duplicate');
    // A new event id for the same payment (the provider re-sending under a new id) is applied idempotently.
    const other = await post(invoicePaid(session), signed(SANDBOX_TEST.callbackToken));
    expect((await other.json()).data.outcome).toBe('already_completed');
    expect(await completionStarts(session.id)).toBe(1);
    expect((await CheckoutSession.findByPk(session.id))!.completedAt!.getTime()).toBe(done!.completedAt!.getTime());
  });

  it.each([
    ['no token', {}, 'missing_token'],
    ['a forged token', { 'x-callback-token': `forged-${'x'.repeat(40)}` }, 'token_mismatch'],
  ])('refuses a callback with %s: 401, nothing written', async (_name, tokenHeader, reason) => {
    const ws = await ctx.createWorkspace();
    const session = await providerSession(ws);
    const before = await receivedEvents();
    const res = await post(invoicePaid(session), { 'webhook-id': randomUUID(), ...tokenHeader });
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(body.error.code).toBe('UNAUTHORIZED');
    expect(JSON.stringify(body)).toContain(reason);
    expect((await CheckoutSession.findByPk(session.id))!.status).toBe('open');
    expect(await receivedEvents()).toBe(before);
  });

  it('refuses a stale or future-dated event and a body that is not JSON: 401, nothing written', async () => {
    const ws = await ctx.createWorkspace();
    const session = await providerSession(ws);
    const before = await receivedEvents();
    const stale = new Date(Date.now() - 26 * 3_600_000).toISOString();
    const future = new Date(Date.now() + 10 * 60_000).toISOString();
    for (const updated of [stale, future]) {
      const res = await post(invoicePaid(session, { updated, created: updated }), signed(SANDBOX_TEST.callbackToken));
      expect(res.status).toBe(401);
      expect(JSON.stringify(await res.json())).toContain('timestamp_outside_tolerance');
    }
    const garbage = await post('{not json', signed(SANDBOX_TEST.callbackToken));
    expect(garbage.status).toBe(401);
    expect((await CheckoutSession.findByPk(session.id))!.status).toBe('open');
    expect(await receivedEvents()).toBe(before);
  });

  it('refuses a body over 64kb with 413, nothing written', async () => {
    const ws = await ctx.createWorkspace();
    const session = await providerSession(ws);
    const before = await receivedEvents();
    const res = await post(invoicePaid(session, { description: 'x'.repeat(70_000) }), signed(SANDBOX_TEST.callbackToken));
    expect(res.status).toBe(413);
    expect((await CheckoutSession.findByPk(session.id))!.status).toBe('open');
    expect(await receivedEvents()).toBe(before);
  });

  it('finds the workspace only through our stored ids: a live-token callback for a test session, or an invoice id with another session as external_id, is 404 and changes nothing', async () => {
    const a = await ctx.createWorkspace();
    const b = await ctx.createWorkspace();
    const sessionA = await providerSession(a);
    const sessionB = await providerSession(b);
    const before = await receivedEvents();

    const wrongEnvironment = await post(invoicePaid(sessionA), signed(SANDBOX_LIVE.callbackToken));
    expect(wrongEnvironment.status).toBe(404);
    const crossed = await post(invoicePaid(sessionA, { external_id: sessionB.id }), signed(SANDBOX_TEST.callbackToken));
    expect(crossed.status).toBe(404);
    const unknown = await post(invoicePaid(sessionB, { id: 'not-an-invoice-of-ours' }), signed(SANDBOX_TEST.callbackToken));
    expect(unknown.status).toBe(404);
    const bodyAccount = await post(invoicePaid(sessionB, { id: sessionA.providerInvoiceId, external_id: sessionB.id, account_id: b.accountId }), signed(SANDBOX_TEST.callbackToken));
    expect(bodyAccount.status).toBe(404);

    expect((await CheckoutSession.findByPk(sessionA.id))!.status).toBe('open');
    expect((await CheckoutSession.findByPk(sessionB.id))!.status).toBe('open');
    expect(await receivedEvents()).toBe(before);
  });

  it('does not complete on a paid amount that differs from the session (recorded, audited)', async () => {
    const ws = await ctx.createWorkspace();
    const session = await providerSession(ws);
    const res = await post(invoicePaid(session, { paid_amount: 1 }), signed(SANDBOX_TEST.callbackToken));
    expect((await res.json()).data.outcome).toBe('amount_mismatch');
    expect((await CheckoutSession.findByPk(session.id))!.status).toBe('open');
  });

  it('acknowledges an unknown event type with 200 and acts on nothing', async () => {
    const res = await post({ event: 'payment_method.activated', created: new Date().toISOString(), data: { id: 'pm-1' } }, signed(SANDBOX_TEST.callbackToken));
    expect(res.status).toBe(200);
    expect((await res.json()).data.outcome).toBe('ignored_unknown_type');
  });

  it('moves an in-transit provider payout to paid or failed by its disbursement callback, with payout.* events; repeats change nothing', async () => {
    const ws = await ctx.createWorkspace();
    const box = createCryptoBox(requireEncryptionKey(ctx.config));
    const paid = await insertPayoutRow(box, ws, { status: 'in_transit', backend: 'provider', amount: 500, currency: 'IDR' });
    const failed = await insertPayoutRow(box, ws, { status: 'in_transit', backend: 'provider', amount: 700, currency: 'IDR' });
    await paid.update({ providerDisbursementId: `disb-${randomUUID()}` });
    await failed.update({ providerDisbursementId: `disb-${randomUUID()}` });
    const disbursement = (payout: Payout, status: string, extra: Record<string, unknown> = {}) => ({
      id: payout.providerDisbursementId,
      external_id: payout.id,
      amount: payout.amount,
      bank_code: 'BCA',
      account_holder_name: 'Fixture Holder',
      disbursement_description: 'Payout',
      status,
      created: new Date().toISOString(),
      updated: new Date().toISOString(),
      ...extra,
    });
    expect((await (await post(disbursement(paid, 'COMPLETED'), signed(SANDBOX_TEST.callbackToken))).json()).data.outcome).toBe('applied');
    expect((await (await post(disbursement(failed, 'FAILED', { failure_code: 'INVALID_DESTINATION' }), signed(SANDBOX_TEST.callbackToken))).json()).data.outcome).toBe('applied');
    expect(await Payout.findByPk(paid.id)).toMatchObject({ status: 'paid', reference: paid.providerDisbursementId });
    expect(await Payout.findByPk(failed.id)).toMatchObject({ status: 'failed', failureReason: 'INVALID_DESTINATION' });
    const again = await post(disbursement(paid, 'FAILED', { failure_code: 'LATE' }), signed(SANDBOX_TEST.callbackToken));
    expect((await again.json()).data.outcome).toBe('ignored_paid');
    expect((await Payout.findByPk(paid.id))!.status).toBe('paid');
    const events = await ctx.sequelize.query<{ type: string; data: { id: string } }>(`SELECT type, data FROM events WHERE account_id = $1 AND type LIKE 'payout.%' ORDER BY created_at`, {
      bind: [tenantOf(ws).accountId],
      type: QueryTypes.SELECT,
    });
    expect(events.map((e) => [e.type, e.data.id])).toEqual([
      ['payout.paid', paid.id],
      ['payout.failed', failed.id],
    ]);
  });
});
