import { CheckoutSession } from '../../db/models';
import type { PaymentSandbox } from '../../lib/payment-provider/sandbox';
import { SANDBOX_TEST_VALUES } from '../../lib/payment-provider/sandbox';
import { CHECKOUT_SESSIONS, checkoutApiEnv, createSession, PUBLIC_BASE_URL } from '../helpers/checkout';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { sandboxEnv, startTestSandbox } from '../helpers/payment-sandbox';
import { waitFor } from '../helpers/wait';

// Checkout sessions in provider mode, against the sandbox provider over loopback sockets: the backend fixed at
// creation, pay creating the provider invoice and answering its page, completion by the provider's callback.

let ctx: TestContext;
let api: TestApi;
let sandbox: PaymentSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  ctx = await createTestContext();
  api = await ctx.startApi({ ...sandboxEnv(sandbox.baseUrl), ...checkoutApiEnv() });
  sandbox.callbackUrl = `${api.baseUrl}/api/v1/payment/provider-webhooks`;
});
afterAll(async () => {
  await ctx.close();
  await sandbox.close();
});

async function paymentModule(key: string, enabled: boolean) {
  const res = await http(api.baseUrl, 'POST', '/api/v1/modules', { key, body: { module: 'payment', enabled } });
  expect(res.status).toBe(200);
}

const payForm = (url: string, form: Record<string, string>) => fetch(`${url}/pay`, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' });

describe('checkout sessions in provider mode', () => {
  it('pay creates the provider invoice once and answers its page; the paid callback completes the session', async () => {
    const ws = await ctx.createWorkspace();
    await paymentModule(ws.secretKey, true);
    const created = await createSession(api.baseUrl, ws.secretKey, { paymentMethods: ['card', 'qris'] });
    expect((await CheckoutSession.findByPk(created.id))!.backend).toBe('provider');

    const pay = await http<{ data: { status: string; redirectUrl: string } }>(api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${created.id}/pay`, { body: { paymentMethod: 'card' } });
    expect(pay.status).toBe(200);
    expect(pay.body.data.status).toBe('open');
    expect(pay.body.data.redirectUrl).toMatch(new RegExp(`^${sandbox.baseUrl}/web/`));
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
});
