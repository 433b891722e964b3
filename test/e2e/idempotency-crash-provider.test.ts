import { randomUUID } from 'node:crypto';
import type { PaymentSandbox } from '../../lib/payment-provider/sandbox';
import { CheckoutRefund } from '../../db/models';
import { CHECKOUT_SESSIONS, checkoutApiEnv } from '../helpers/checkout';
import { createTestContext, type TestApi, type TestContext } from '../helpers/context';
import { killedAt, sendWithKey } from '../helpers/crash-at-hook';
import { paidProviderSession, sandboxEnv, startTestSandbox } from '../helpers/payment-sandbox';

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
