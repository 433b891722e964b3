import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { AuditLog, CheckoutRefund, CheckoutSession } from '../../db/models';
import { expireCheckoutIfOpen, expireProviderInvoiceOf } from '../../domain/checkout/expiry';
import { createCheckoutFulfillment, FULFILLMENT_STEPS } from '../../domain/checkout/fulfillment';
import { loadConfig, requireEncryptionKey } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import type { PaymentSandbox } from '../../lib/payment-provider/sandbox';
import { SANDBOX_TEST_VALUES } from '../../lib/payment-provider/sandbox';
import { CHECKOUT_SESSIONS, checkoutApiEnv, checkoutSnapshot, createSession, minimalSession, PUBLIC_BASE_URL } from '../helpers/checkout';
import { eventsOfSession } from '../fixtures/fulfillment';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { startLossyProxy } from '../helpers/lossy-proxy';
import { paidProviderSession as paidSession, payForm, sandboxEnv, startTestSandbox, switchPaymentModule } from '../helpers/payment-sandbox';
import { waitFor } from '../helpers/wait';

// Checkout sessions in provider mode, against the sandbox provider over loopback sockets: the backend fixed at
// creation, pay creating the provider invoice and answering its page, completion by the provider's callback.

let ctx: TestContext;
let api: TestApi;
let sandbox: PaymentSandbox;

beforeAll(async () => {
  // Callbacks retried quickly: a refund's callback can arrive before the transaction that stored it has committed.
  sandbox = await startTestSandbox({ callbackRetryDelaysMs: [200, 500, 1_000, 2_000] });
  ctx = await createTestContext();
  api = await ctx.startApi({ ...sandboxEnv(sandbox.baseUrl), ...checkoutApiEnv() });
  sandbox.callbackUrl = `${api.baseUrl}/api/v1/payment/provider-webhooks`;
});
afterAll(async () => {
  await ctx.close();
  await sandbox.close();
});

const paymentModule = (key: string, enabled: boolean) => switchPaymentModule(api.baseUrl, key, enabled);
const paidProviderSession = (baseUrl: string) => paidSession(ctx, baseUrl);

describe('checkout sessions in provider mode', () => {
  it('create opens the provider invoice: hostedUrl is the provider page; pay answers that invoice; the paid callback completes the session', async () => {
    const ws = await ctx.createWorkspace();
    await paymentModule(ws.secretKey, true);
    const created = await createSession(api.baseUrl, ws.secretKey, { paymentMethods: ['card', 'qris'] });
    expect((await CheckoutSession.findByPk(created.id))!.backend).toBe('provider');
    expect(created.hostedUrl).toMatch(new RegExp(`^${sandbox.baseUrl}/web/`));
    // No success or cancel URL of the merchant's: the provider sends the buyer back to our page (the receipt).
    const opened = [...sandbox.invoices.values()].find((i) => i.external_id === created.id)!;
    expect(opened).toMatchObject({ success_redirect_url: `${PUBLIC_BASE_URL}/checkout/${created.id}`, failure_redirect_url: `${PUBLIC_BASE_URL}/checkout/${created.id}` });

    const pay = await http<{ data: { status: string; redirectUrl: string } }>(api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${created.id}/pay`, { body: { paymentMethod: 'card' } });
    expect(pay.status).toBe(200);
    expect(pay.body.data.status).toBe('open');
    expect(pay.body.data.redirectUrl).toBe(created.hostedUrl);
    const again = await http<{ data: { redirectUrl: string } }>(api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${created.id}/pay`, { body: { paymentMethod: 'qris' } });
    expect(again.body.data.redirectUrl).toBe(pay.body.data.redirectUrl);
    expect(sandbox.invoices.size).toBeGreaterThan(0);
    const invoice = [...sandbox.invoices.values()].filter((i) => i.external_id === created.id);
    expect(invoice).toHaveLength(1);
    expect(invoice[0]).toMatchObject({ amount: 150_000, currency: 'IDR', payment_methods: ['CREDIT_CARD', 'QRIS'] });

    const read = await http<{ data: { hostedUrl: string; status: string } }>(api.baseUrl, 'GET', `${CHECKOUT_SESSIONS}/${created.id}`, { key: ws.secretKey });
    expect(read.body.data.hostedUrl).toBe(pay.body.data.redirectUrl);

    await payForm(pay.body.data.redirectUrl, { channel: 'CREDIT_CARD', card_number: SANDBOX_TEST_VALUES.cards.declined });
    expect((await CheckoutSession.findByPk(created.id))!.status).toBe('open');
    await payForm(pay.body.data.redirectUrl, { channel: 'CREDIT_CARD', card_number: SANDBOX_TEST_VALUES.cards.success });
    const done = await waitFor(async () => {
      const row = await CheckoutSession.findByPk(created.id);
      return row?.status === 'completed' && row;
    });
    expect(done.paymentMethod).toBe('card');

    // Its checkout.completed says the provider completed it, not the merchant's confirm (whether the worker or this
    // call applies the step first, it is applied once).
    const config = loadConfig(process.env);
    const fulfillment = createCheckoutFulfillment({ sequelize: ctx.sequelize, config, box: createCryptoBox(requireEncryptionKey(config)) });
    await fulfillment.runStep({ accountId: ws.accountId, environment: 'test' }, created.id, FULFILLMENT_STEPS.completedEvent);
    const completed = (await eventsOfSession(ctx.sequelize, created.id)).filter((e) => e.type === 'checkout.completed');
    expect(completed.map((e) => e.data.metadata?.source)).toEqual(['payment_provider']);
  });

  it('a session created before the module was switched on stays local: pay answers our page and pending_review', async () => {
    const ws = await ctx.createWorkspace();
    const created = await createSession(api.baseUrl, ws.secretKey);
    await paymentModule(ws.secretKey, true);
    const pay = await http<{ data: { status: string; redirectUrl: string } }>(api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${created.id}/pay`, { body: { paymentMethod: 'va' } });
    expect(pay.body.data).toMatchObject({ status: 'pending_review', redirectUrl: `${PUBLIC_BASE_URL}/checkout/${created.id}` });
    expect([...sandbox.invoices.values()].some((i) => i.external_id === created.id)).toBe(false);
  });

  it('a provider session stays on the provider after the module is switched off', async () => {
    const ws = await ctx.createWorkspace();
    await paymentModule(ws.secretKey, true);
    const created = await createSession(api.baseUrl, ws.secretKey);
    await paymentModule(ws.secretKey, false);
    const pay = await http<{ data: { status: string; redirectUrl: string } }>(api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${created.id}/pay`, { body: { paymentMethod: 'qris' } });
    expect(pay.body.data.status).toBe('open');
    expect(pay.body.data.redirectUrl).toMatch(new RegExp(`^${sandbox.baseUrl}/web/`));
  });

  it('a provider that does not answer at creation: 502 PARTNER_UNAVAILABLE, nothing written', async () => {
    const dead = await ctx.startApi({ ...sandboxEnv('http://127.0.0.1:9'), ...checkoutApiEnv() });
    const ws = await ctx.createWorkspace();
    await paymentModule(ws.secretKey, true);
    const before = await checkoutSnapshot(ctx.sequelize, ws.accountId);
    const res = await http<{ error: { code: string } }>(dead.baseUrl, 'POST', CHECKOUT_SESSIONS, { key: ws.secretKey, body: minimalSession });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('PARTNER_UNAVAILABLE');
    expect(await checkoutSnapshot(ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('our hosted page sends a provider session’s pay on to the provider page, and its CSP lets the form get there', async () => {
    const ws = await ctx.createWorkspace();
    await paymentModule(ws.secretKey, true);
    const created = await createSession(api.baseUrl, ws.secretKey, { paymentMethods: ['qris', 'va'] });
    const page = await fetch(`${api.baseUrl}/checkout/${created.id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain(`form-action 'self' ${new URL(sandbox.baseUrl).origin}`);
    const pay = await fetch(`${api.baseUrl}/checkout/${created.id}/pay`, {
      method: 'POST',
      body: new URLSearchParams({ paymentMethod: 'qris' }),
      headers: { 'sec-fetch-site': 'same-origin' },
      redirect: 'manual',
    });
    expect(pay.status).toBe(303);
    expect(pay.headers.get('location')).toBe(created.hostedUrl);
    expect((await CheckoutSession.findByPk(created.id))!.status).toBe('open');
    // A local session's page keeps forms on this origin.
    const local = await createSession(api.baseUrl, (await ctx.createWorkspace()).secretKey);
    expect((await fetch(`${api.baseUrl}/checkout/${local.id}`)).headers.get('content-security-policy')).toContain("form-action 'self';");
  });

  it('a payment after expiry: the session stays expired and unfulfilled, the payment is refunded in full at the provider; the callback again changes nothing', async () => {
    const ws = await ctx.createWorkspace();
    await paymentModule(ws.secretKey, true);
    const created = await createSession(api.baseUrl, ws.secretKey, { paymentMethods: ['va'] });
    const invoice = [...sandbox.invoices.values()].find((i) => i.external_id === created.id)!;
    sandbox.holdCallbacks = true;
    try {
      await payForm(created.hostedUrl as string, { channel: 'BCA' });
    } finally {
      sandbox.holdCallbacks = false;
    }
    expect(invoice.status).toBe('PAID');
    const held = sandbox.callbacks.find((c) => c.body.id === invoice.id && c.body.status === 'PAID')!;
    // Our deadline passes before the callback arrives; the invoice was paid first, so expiring it is a no-op.
    const tenant = { accountId: ws.accountId, environment: 'test' as const };
    expect(await expireCheckoutIfOpen(ctx.sequelize, tenant, created.id, new Date(Date.now() + 25 * 3_600_000))).toBe('expired');
    await expireProviderInvoiceOf(loadConfig({ ...process.env, ...sandboxEnv(sandbox.baseUrl) }), tenant, created.id);
    expect(invoice.status).toBe('PAID');

    expect(await sandbox.deliver(held.webhookId)).toBe(200);
    const row = await CheckoutSession.findByPk(created.id);
    expect(row).toMatchObject({ status: 'expired', completedAt: null });
    expect(invoice.refunded).toBe(invoice.amount);
    const audits = await AuditLog.findAll({ where: { targetId: created.id, action: 'checkout_session.late_payment_refunded' } });
    expect(audits).toHaveLength(1);
    const starts = await ctx.sequelize.query(`SELECT 1 FROM workflow_starts WHERE workflow_type = 'checkoutCompleted' AND args->>'sessionId' = $1`, { bind: [created.id], type: QueryTypes.SELECT });
    expect(starts).toHaveLength(0);

    // The same callback again (the provider's retry): a duplicate, no second refund.
    expect(await sandbox.deliver(held.webhookId)).toBe(200);
    expect(invoice.refunded).toBe(invoice.amount);
    expect(await AuditLog.count({ where: { targetId: created.id, action: 'checkout_session.late_payment_refunded' } })).toBe(1);
    expect((await CheckoutSession.findByPk(created.id))!.status).toBe('expired');
  });

  it('a declined payment on the provider page leaves the session open and payable', async () => {
    const ws = await ctx.createWorkspace();
    await paymentModule(ws.secretKey, true);
    const created = await createSession(api.baseUrl, ws.secretKey, { paymentMethods: ['ewallet'] });
    const declined = await fetch(`${created.hostedUrl as string}/decline`, { method: 'POST', redirect: 'manual' });
    expect(declined.status).toBe(303);
    expect(await (await fetch(created.hostedUrl as string)).text()).toContain('PAYMENT_DECLINED');
    const row = await CheckoutSession.findByPk(created.id);
    expect(row).toMatchObject({ status: 'open', paymentMethod: null });
    expect(sandbox.callbacks.some((c) => c.body.external_id === created.id)).toBe(false);
  });

  it('refund of a provider session goes to the provider: pending until the provider’s refund callback; no refund event of ours', async () => {
    const { ws, created } = await paidProviderSession(api.baseUrl);

    const res = await http<{ data: { id: string; status: string; amount: number; checkoutSession: { amountRefunded: number } } }>(api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${created.id}/refund`, {
      key: ws.secretKey,
      body: { amount: 50_000, reason: 'damaged' },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'pending', amount: 50_000, checkoutSession: { amountRefunded: 50_000 } });
    const invoice = [...sandbox.invoices.values()].find((i) => i.external_id === created.id)!;
    expect(invoice.refunded).toBe(50_000);
    const settled = await waitFor(async () => {
      const refund = await CheckoutRefund.findByPk(res.body.data.id);
      return refund?.status === 'succeeded' && refund;
    });
    expect(settled.providerRefundId).toMatch(/^rfd-/);
    const events = await ctx.sequelize.query(`SELECT type FROM events WHERE account_id = $1 AND type LIKE 'refund.%'`, { bind: [ws.accountId], type: QueryTypes.SELECT });
    expect(events).toEqual([]);
  });

  it('a refund whose answer was lost is 502 and writes nothing; its retry under the same Idempotency-Key is answered the refund the provider made, not a second one', async () => {
    const proxy = await startLossyProxy(sandbox.baseUrl);
    try {
      const viaProxy = await ctx.startApi({ ...sandboxEnv(proxy.baseUrl), ...checkoutApiEnv() });
      const { ws, created } = await paidProviderSession(viaProxy.baseUrl);
      const invoice = [...sandbox.invoices.values()].find((i) => i.external_id === created.id)!;
      const before = await checkoutSnapshot(ctx.sequelize, ws.accountId);

      const idempotencyKey = randomUUID();
      const refund = () =>
        http<{ data: { id: string; status: string; checkoutSession: { amountRefunded: number } }; error: { code: string } }>(viaProxy.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${created.id}/refund`, {
          key: ws.secretKey,
          body: { amount: 50_000 },
          headers: { 'idempotency-key': idempotencyKey },
        });
      proxy.loseNextAnswer('POST', '/refunds');
      const first = await refund();
      expect(proxy.lost).toBe(1);
      expect(first.status).toBe(502);
      expect(first.body.error.code).toBe('PARTNER_UNAVAILABLE');
      expect(invoice.refunded).toBe(50_000);
      expect(await checkoutSnapshot(ctx.sequelize, ws.accountId)).toEqual(before);

      const retried = await refund();
      expect(retried.status).toBe(200);
      expect(retried.body.data).toMatchObject({ status: 'pending', checkoutSession: { amountRefunded: 50_000 } });
      expect(invoice.refunded).toBe(50_000);
      // The provider's callback for the refund it made first (answered 404 while no row of ours named it) now settles ours.
      await waitFor(async () => (await CheckoutRefund.findByPk(retried.body.data.id))?.status === 'succeeded');
      expect(await CheckoutRefund.count({ where: { checkoutSessionId: created.id } })).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('a refund the provider refuses is 502 PARTNER_UNAVAILABLE and writes nothing', async () => {
    const { ws, created } = await paidProviderSession(api.baseUrl);
    // The provider's side already gave everything back (say, from its dashboard): it refuses another refund.
    [...sandbox.invoices.values()].find((i) => i.external_id === created.id)!.refunded = 150_000;
    const before = await checkoutSnapshot(ctx.sequelize, ws.accountId);
    const res = await http<{ error: { code: string } }>(api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${created.id}/refund`, { key: ws.secretKey, body: {} });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('PARTNER_UNAVAILABLE');
    expect(await checkoutSnapshot(ctx.sequelize, ws.accountId)).toEqual(before);
  });
});

describe('billing invoices in provider mode', () => {
  it('a manually issued invoice opens its session’s provider invoice at once, so the page it links to can send the buyer there', async () => {
    const ws = await ctx.createWorkspace();
    await paymentModule(ws.secretKey, true);
    const customer = await http<{ data: { id: string } }>(api.baseUrl, 'POST', '/api/v1/payment/customers', { key: ws.secretKey, body: { email: 'ada@example.com', name: 'Ada' } });
    expect(customer.status).toBe(201);
    const issued = await http<{ data: { id: string; hostedUrl: string; metadata: { checkoutSessionId: string } } }>(api.baseUrl, 'POST', '/api/v1/billing/invoices', {
      key: ws.secretKey,
      body: { customerId: customer.body.data.id, currency: 'IDR', lineItems: [{ description: 'Consulting', quantity: 1, unitAmount: 250_000 }] },
    });
    expect(issued.status).toBe(201);
    const sessionId = issued.body.data.metadata.checkoutSessionId;
    const session = (await CheckoutSession.findByPk(sessionId))!;
    expect(session.backend).toBe('provider');
    expect(session.providerInvoiceUrl).toMatch(new RegExp(`^${sandbox.baseUrl}/web/`));
    expect([...sandbox.invoices.values()].filter((i) => i.external_id === sessionId)).toEqual([expect.objectContaining({ amount: 250_000, currency: 'IDR' })]);
  });
});
