import { randomUUID } from 'node:crypto';
import type { PaymentSandbox } from '../../lib/payment-provider/sandbox';
import { CheckoutRefund, Customer } from '../../db/models';
import { CHECKOUT_SESSIONS, checkoutApiEnv } from '../helpers/checkout';
import { createTestContext, type TestApi, type TestContext } from '../helpers/context';
import { killedAt, sendWithKey } from '../helpers/crash-at-hook';
import { paidProviderSession, sandboxEnv, startTestSandbox, switchPaymentModule } from '../helpers/payment-sandbox';

/**
 * A provider refund under an Idempotency-Key with the API process SIGKILLed at the worst points. Before our commit the
 * provider has already refunded: the retry asks it again under the key derived from ours and records the refund it
 * made, once. After our commit: the retry replays. Either way the buyer is refunded once.
 */
jest.setTimeout(300_000);

let ctx: TestContext;
let api: TestApi;
let sandbox: PaymentSandbox;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startTestSandbox({ callbackRetryDelaysMs: [200, 500, 1_000, 2_000] });
  ctx = await createTestContext();
  env = { ...sandboxEnv(sandbox.baseUrl), ...checkoutApiEnv() };
  api = await ctx.startApi(env);
  sandbox.callbackUrl = `${api.baseUrl}/api/v1/payment/provider-webhooks`;
});
afterAll(async () => {
  await ctx.close();
  await sandbox.close();
});

async function refundCase() {
  const { ws, created } = await paidProviderSession(ctx, api.baseUrl);
  const invoice = [...sandbox.invoices.values()].find((i) => i.external_id === created.id)!;
  const call = { method: 'POST', path: `${CHECKOUT_SESSIONS}/${created.id}/refund`, key: ws.secretKey, body: { amount: 50_000 } };
  return { sessionId: created.id, invoice, call, idempotencyKey: randomUUID() };
}

describe('a provider refund retried after the API was killed', () => {
  it('killed after the provider refunded and before our commit: the retry records the refund the provider made, not a second one', async () => {
    const { sessionId, invoice, call, idempotencyKey } = await refundCase();
    await killedAt(env, 'idempotency:before-commit', call, idempotencyKey);
    expect(invoice.refunded).toBe(50_000);
    expect(await CheckoutRefund.count({ where: { checkoutSessionId: sessionId } })).toBe(0);

    const retry = await sendWithKey(api.baseUrl, call, idempotencyKey);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body.data).toMatchObject({ amount: 50_000, checkoutSession: { amountRefunded: 50_000 } });
    expect(invoice.refunded).toBe(50_000);
    expect(await CheckoutRefund.count({ where: { checkoutSessionId: sessionId } })).toBe(1);
  });

  it('killed after our commit: the retry replays the 200; one refund here and at the provider', async () => {
    const { sessionId, invoice, call, idempotencyKey } = await refundCase();
    await killedAt(env, 'idempotency:after-commit', call, idempotencyKey);
    const retry = await sendWithKey(api.baseUrl, call, idempotencyKey);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(invoice.refunded).toBe(50_000);
    expect(await CheckoutRefund.count({ where: { checkoutSessionId: sessionId } })).toBe(1);
  });
});

describe('a provider customer create retried after the API was killed', () => {
  it('killed after the provider created it and before our commit: the retry keeps that customer, with the id the provider holds', async () => {
    const ws = await ctx.createWorkspace();
    await switchPaymentModule(api.baseUrl, ws.secretKey, true);
    const email = `crash-${ws.accountId.toLowerCase()}@example.com`;
    const call = { method: 'POST', path: '/api/v1/payment/customers', key: ws.secretKey, body: { email, name: 'Ana' } };
    const atProvider = () => [...sandbox.customers.values()].filter((c) => c.email === email);
    const idempotencyKey = randomUUID();
    await killedAt(env, 'idempotency:before-commit', call, idempotencyKey);
    expect(atProvider()).toHaveLength(1);
    expect(await Customer.count({ where: { accountId: ws.accountId } })).toBe(0);

    const retry = await sendWithKey(api.baseUrl, call, idempotencyKey);
    expect(retry.status).toBe(201);
    expect(atProvider()).toHaveLength(1);
    const rows = await Customer.findAll({ where: { accountId: ws.accountId } });
    expect(rows.map((row) => [row.id, row.providerCustomerId])).toEqual([[atProvider()[0]!.reference_id, atProvider()[0]!.id]]);
    expect((retry.body.data as { id: string }).id).toBe(rows[0]!.id);
  });
});
