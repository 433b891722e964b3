import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { checkoutApiEnv, CHECKOUT_SESSIONS, createSession } from '../helpers/checkout';
import { http, useTestApi, type HttpResult } from '../helpers/context';
import { killedAt, sendWithKey, type Call } from '../helpers/crash-at-hook';
import { expectError } from '../helpers/expect';
import { adjustStock, createVariant, createWarehouse, switchFulfillment } from '../helpers/inventory';
import { createProduct } from '../helpers/storefront';
import { insertCheckoutSessionRow } from '../fixtures/checkout';
import { insertManualOrder, manualStore } from '../fixtures/manual-orders';
import { fundAvailable } from '../fixtures/payouts';
import { waitFor } from '../helpers/wait';
import { workflowIds } from '../../workflows/messages';

/**
 * An Idempotency-Key retry never runs a request twice, though the API process is SIGKILLed at the worst points: after
 * its transaction committed and before the answer left (the retry replays the stored answer), and before the commit
 * (the retry runs the request, once). The API is `api/main.ts` as deployed, paused by its test hook, then killed.
 */
jest.setTimeout(300_000);

const env = checkoutApiEnv();
const t = useTestApi(env);

const count = async (sql: string, replacements: Record<string, unknown>) =>
  Number((await t.ctx.sequelize.query<{ n: number }>(sql, { type: QueryTypes.SELECT, replacements }))[0]!.n);

/** Killed after its commit: the retry replays the first answer, and the effect exists once. */
async function expectReplayAfterCrash(call: Call, status: number): Promise<HttpResult> {
  const idempotencyKey = randomUUID();
  await killedAt(env, 'idempotency:after-commit', call, idempotencyKey);
  const retry = await sendWithKey(t.api.baseUrl, call, idempotencyKey);
  expect(retry.status).toBe(status);
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
  return retry;
}

/** A workspace with the fulfillment module on, 10 Blue mugs (15 USD) in its default warehouse. */
async function mugShop(): Promise<{ ws: CreatedWorkspace; productId: string; productSlug: string; variantId: string }> {
  const ws = await t.ctx.createWorkspace();
  await switchFulfillment(t.api.baseUrl, ws.secretKey, true);
  const main = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Main' });
  const product = await createProduct(t.api.baseUrl, ws.secretKey, { name: 'Mug', type: 'physical', weight: 300, price: 10, currency: 'USD' });
  const variant = await createVariant(t.api.baseUrl, ws.secretKey, product.id, { name: 'Blue', priceDelta: 5 });
  await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: 10, reason: 'initial_stock' });
  return { ws, productId: product.id, productSlug: String(product.slug), variantId: variant.id };
}

const mugPurchase = (shop: { productId: string; variantId: string }) => ({
  productId: shop.productId,
  variantId: shop.variantId,
  currency: 'USD',
  description: 'Blue mugs',
  customerEmail: 'buyer@example.com',
});

const reservedOf = (accountId: string) =>
  count('SELECT coalesce(sum(quantity), 0)::int AS n FROM stock_reservations WHERE account_id = :accountId', { accountId });
const sessionsOf = (accountId: string) => count('SELECT count(*)::int AS n FROM checkout_sessions WHERE account_id = :accountId', { accountId });

describe('an Idempotency-Key retry after the API was killed', () => {
  it('checkout session create with a reserved variant: killed after commit, the retry replays the 201; one session, one reservation', async () => {
    const shop = await mugShop();
    const call = { method: 'POST', path: CHECKOUT_SESSIONS, key: shop.ws.secretKey, body: { ...mugPurchase(shop), quantity: 3, amount: 4500 } };
    const retry = await expectReplayAfterCrash(call, 201);
    const session = (retry.body.data as { id: string }).id;
    expect(await sessionsOf(shop.ws.accountId)).toBe(1);
    expect(await count('SELECT count(*)::int AS n FROM checkout_sessions WHERE id = :session', { session })).toBe(1);
    expect(await reservedOf(shop.ws.accountId)).toBe(3);
  });

  it('checkout session create: killed before commit, a retry while it is paused is 409 IN_USE, and after the kill it runs at once, once', async () => {
    const shop = await mugShop();
    const call = { method: 'POST', path: CHECKOUT_SESSIONS, key: shop.ws.secretKey, body: { ...mugPurchase(shop), quantity: 2, amount: 3000 } };
    const idempotencyKey = randomUUID();
    await killedAt(env, 'idempotency:before-commit', call, idempotencyKey, async () => {
      expectError(await sendWithKey(t.api.baseUrl, call, idempotencyKey), 409, 'IDEMPOTENCY_KEY_IN_USE');
    });
    expect(await sessionsOf(shop.ws.accountId)).toBe(0);
    expect(await reservedOf(shop.ws.accountId)).toBe(0);
    const retry = await sendWithKey(t.api.baseUrl, call, idempotencyKey);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await sessionsOf(shop.ws.accountId)).toBe(1);
    expect(await reservedOf(shop.ws.accountId)).toBe(2);
    // The killed attempt started no workflow: its start waited for a commit that never came.
    const started = async () => {
      const ids: string[] = [];
      for await (const run of t.ctx.temporal.workflow.list({ query: `WorkflowType = 'checkoutSession' AND AccountId = '${shop.ws.accountId}'` })) ids.push(run.workflowId);
      return ids;
    };
    await waitFor(async () => (await started()).length > 0);
    expect(await started()).toEqual([workflowIds.checkoutSession((retry.body.data as { id: string }).id)]);
    const again = await sendWithKey(t.api.baseUrl, call, idempotencyKey);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(retry.body);
  });

  it('buy-now on the storefront: killed after commit, the retry replays the 201; one session, one reservation', async () => {
    const shop = await mugShop();
    const call = {
      method: 'POST',
      path: `/api/v1/storefront/public/${shop.ws.slug}/${shop.productSlug}/checkout`,
      key: shop.ws.publishableKey,
      body: { email: 'buyer@example.com', variantId: shop.variantId, quantity: 2, shippingAddress: { name: 'Budi', line1: 'Jl. Sudirman 1', city: 'Jakarta', country: 'ID' } },
    };
    const retry = await expectReplayAfterCrash(call, 201);
    expect(await sessionsOf(shop.ws.accountId)).toBe(1);
    const session = (retry.body.data as { checkoutSessionId: string }).checkoutSessionId;
    expect(await count('SELECT count(*)::int AS n FROM checkout_sessions WHERE id = :session', { session })).toBe(1);
    expect(await reservedOf(shop.ws.accountId)).toBe(2);
  });

  it('confirm: the retry replays the 200, not 409 INVALID_STATE; one completion start', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'pending_review' });
    const retry = await expectReplayAfterCrash({ method: 'POST', path: `${CHECKOUT_SESSIONS}/${session.id}/confirm`, key: ws.secretKey }, 200);
    expect(retry.body.data).toMatchObject({ id: session.id, status: 'completed' });
    expect(await count(`SELECT count(*)::int AS n FROM workflow_starts WHERE account_id = :accountId AND workflow_type = 'checkoutCompleted'`, { accountId: ws.accountId })).toBe(1);
  });

  it('refund: the retry replays the 200; one refund row, refunded once', async () => {
    const ws = await t.ctx.createWorkspace();
    const session = await createSession(t.api.baseUrl, ws.secretKey, { paymentMethods: ['va'] });
    expect((await http(t.api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${session.id}/pay`, { body: { paymentMethod: 'va' } })).status).toBe(200);
    expect((await http(t.api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${session.id}/confirm`, { key: ws.secretKey })).status).toBe(200);
    await expectReplayAfterCrash({ method: 'POST', path: `${CHECKOUT_SESSIONS}/${session.id}/refund`, key: ws.secretKey, body: { amount: 50_000 } }, 200);
    expect(await count('SELECT count(*)::int AS n FROM checkout_refunds WHERE checkout_session_id = :id', { id: session.id })).toBe(1);
    const after = await http<{ data: { amountRefunded: number } }>(t.api.baseUrl, 'GET', `${CHECKOUT_SESSIONS}/${session.id}`, { key: ws.secretKey });
    expect(after.body.data.amountRefunded).toBe(50_000);
  });

  it('payout create: the retry replays the 201; one payout, the balance debited once', async () => {
    const ws = await t.ctx.createWorkspace();
    await fundAvailable(t.ctx.sequelize, ws, 10_000);
    const bank = { bankCode: 'BCA', bankName: 'Bank Central Asia', bankAccountNumber: '1234-5678-90', bankAccountHolder: 'Toko Maju' };
    expect((await http(t.api.baseUrl, 'PATCH', '/api/v1/payouts/bank-account', { key: ws.secretKey, body: bank })).status).toBe(200);
    await expectReplayAfterCrash({ method: 'POST', path: '/api/v1/payouts', key: ws.secretKey, body: { amount: 4_000, currency: 'USD' } }, 201);
    expect(await count('SELECT count(*)::int AS n FROM payouts WHERE account_id = :accountId', { accountId: ws.accountId })).toBe(1);
    const balance = await http<{ data: { currency: string; available: number }[] }>(t.api.baseUrl, 'GET', '/api/v1/payouts/balance', { key: ws.secretKey });
    expect(balance.body.data.find((b) => b.currency === 'USD')?.available).toBe(6_000);
  });

  it('manual order payment confirmation: the retry replays the 200; one receipt e-mail, one fulfillment start', async () => {
    const store = await manualStore(t.ctx);
    const order = await insertManualOrder(t.ctx.sequelize, store.ws, store.ebook.id);
    await expectReplayAfterCrash({ method: 'PATCH', path: `/api/v1/manual-orders/${order.id}`, key: store.ws.secretKey, body: { paymentStatus: 'payment_confirmed' } }, 200);
    expect(await count('SELECT count(*)::int AS n FROM email_messages WHERE account_id = :accountId', { accountId: store.ws.accountId })).toBe(1);
    expect(await count(`SELECT count(*)::int AS n FROM workflow_starts WHERE account_id = :accountId AND workflow_type = 'manualOrder'`, { accountId: store.ws.accountId })).toBe(1);
  });

  it('product create: the retry replays the 201 with the same product; one product', async () => {
    const ws = await t.ctx.createWorkspace();
    const retry = await expectReplayAfterCrash({ method: 'POST', path: '/api/v1/storefront/products', key: ws.secretKey, body: { name: 'Course', type: 'digital', price: 49, currency: 'USD' } }, 201);
    const products = await t.ctx.sequelize.query<{ id: string }>('SELECT id FROM products WHERE account_id = :accountId', { type: QueryTypes.SELECT, replacements: { accountId: ws.accountId } });
    expect(products.map((p) => p.id)).toEqual([(retry.body.data as { id: string }).id]);
  });
});
