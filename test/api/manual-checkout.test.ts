import { QueryTypes } from 'sequelize';
import { nextManualOrderSeq } from '../../db/manual-order-numbers';
import { Account, DiscountCode, EmailMessage, ManualOrder } from '../../db/models';
import { formatOrderNumber, orderNumberPrefix } from '../../domain/manual-orders/numbers';
import { workflowIds } from '../../workflows/messages';
import { insertCartProduct, insertCoupon } from '../fixtures/cart';
import { MANUAL_PAYMENT, manualOrderWrites, manualStore, placeOrder, SHIPPING_ADDRESS } from '../fixtures/manual-orders';
import { tenantOf } from '../fixtures/workspaces';
import { http, useTestApi, type HttpResult } from '../helpers/context';
import { expectError } from '../helpers/expect';

const t = useTestApi({ TEMPORAL_TASK_QUEUE: `manual-checkout-${process.pid}` });

const prefixOf = (slug: string | null) => orderNumberPrefix(slug);

/** Asserts a refusal and that it wrote nothing at all (the order number counter included). */
async function expectRefusedWithoutWrites<R extends HttpResult>(accountId: string, send: () => Promise<R>, status: number, code: string): Promise<R> {
  const before = await manualOrderWrites(t.ctx.sequelize, accountId);
  const res = await send();
  expectError(res, status, code);
  expect(await manualOrderWrites(t.ctx.sequelize, accountId)).toEqual(before);
  return res;
}

describe('manual checkout: placing an order', () => {
  it('records a buy-now order awaiting payment, answers its number, amount and the payment instructions, and queues the instructions e-mail in the same transaction', async () => {
    const { ws, ebook } = await manualStore(t.ctx);
    const res = await placeOrder(t.api.baseUrl, ws, { email: 'Budi@Example.test', name: 'Budi', phone: '+62 812', productSlug: ebook.slug, paymentMethod: 'qris' });
    expect(res.status).toBe(201);
    const placed = res.body.data;
    const orderNumber = `${prefixOf(ws.slug)}-0001`;
    expect(placed).toEqual({
      id: expect.stringMatching(/^mord_[0-9A-Z]{26}$/),
      orderNumber,
      paymentStatus: 'awaiting_payment',
      fulfillmentStatus: 'preparing',
      paymentMethod: 'qris',
      lines: [{ productId: ebook.id, productName: 'Ebook', variantId: null, variantName: null, quantity: 1, unitAmount: 2500, amount: 2500 }],
      subtotal: 2500,
      discountCode: null,
      discountAmount: 0,
      amount: 2500,
      currency: 'USD',
      paymentInstructions: {
        bankName: MANUAL_PAYMENT.manualBankName,
        accountNumber: MANUAL_PAYMENT.manualAccountNumber,
        accountHolder: MANUAL_PAYMENT.manualAccountHolder,
        instructions: MANUAL_PAYMENT.manualPaymentInstructions,
        reference: orderNumber,
      },
      placedAt: expect.any(String),
    });
    expect(placed).not.toHaveProperty('accountId');

    const order = await ManualOrder.findByPk(placed.id as string);
    expect(order).toMatchObject({
      ...tenantOf(ws),
      seq: 1,
      orderNumber,
      productId: ebook.id,
      productName: 'Ebook',
      quantity: 1,
      amount: 2500,
      paymentStatus: 'awaiting_payment',
      fulfillmentStatus: 'preparing',
      customerEmail: 'Budi@Example.test',
      customerPhone: '+62 812',
      paymentConfirmedAt: null,
    });
    expect(order!.placedAt.toISOString()).toBe(placed.placedAt);
    // No checkout session: a manual order is its own record.
    expect(await t.ctx.sequelize.query('SELECT 1 FROM checkout_sessions WHERE account_id = :id', { type: QueryTypes.SELECT, replacements: { id: ws.accountId } })).toEqual([]);

    const [email] = await EmailMessage.findAll({ where: { accountId: ws.accountId } });
    expect(email).toMatchObject({ kind: 'manual_order_instructions', businessKey: `manual_order_instructions:${placed.id}`, toAddress: 'Budi@Example.test', environment: 'test' });
    expect(email!.subject).toBe(`How to pay for order ${orderNumber} at ${(await Account.findByPk(ws.accountId))!.name}`);
    const starts = await t.ctx.sequelize.query<{ workflow_id: string; started_at: Date | null }>('SELECT workflow_id, started_at FROM workflow_starts WHERE account_id = :id', {
      type: QueryTypes.SELECT,
      replacements: { id: ws.accountId },
    });
    // Started right after the commit (the fast path), and recorded in the order's transaction for the relay otherwise.
    expect(starts).toEqual([{ workflow_id: workflowIds.emailDelivery(email!.id), started_at: expect.any(Date) }]);
  });

  it('prices from the catalogue: productId with a quantity, or items as in cart checkout (the first line is the top-level product)', async () => {
    const { ws, ebook, app } = await manualStore(t.ctx);
    const buyNow = await placeOrder(t.api.baseUrl, ws, { email: 'a@example.test', productId: ebook.id, quantity: 3 });
    expect(buyNow.status).toBe(201);
    expect(buyNow.body.data).toMatchObject({ orderNumber: `${prefixOf(ws.slug)}-0001`, subtotal: 7500, amount: 7500 });

    const cart = await placeOrder(t.api.baseUrl, ws, { email: 'a@example.test', items: [{ productId: app.id, quantity: 1 }, { productId: ebook.id, quantity: 2 }] });
    expect(cart.status).toBe(201);
    expect(cart.body.data).toMatchObject({
      orderNumber: `${prefixOf(ws.slug)}-0002`,
      lines: [expect.objectContaining({ productId: app.id, quantity: 1, amount: 9900 }), expect.objectContaining({ productId: ebook.id, quantity: 2, amount: 5000 })],
      subtotal: 14_900,
      amount: 14_900,
    });
    const order = await ManualOrder.findByPk(cart.body.data.id);
    expect(order).toMatchObject({ productId: app.id, productName: 'App', quantity: 1, amount: 14_900 });
    expect(order!.lines.map((line) => [line.lineKey, line.productType, line.licenseEnabled])).toEqual([
      ['1', 'digital', true],
      ['2', 'digital', false],
    ]);
  });

  it('applies a discount code through the shared validation, counting its use only at confirmation', async () => {
    const { ws, ebook } = await manualStore(t.ctx);
    const coupon = await insertCoupon(ws, { code: 'HEMAT10', value: 10 });
    const res = await placeOrder(t.api.baseUrl, ws, { email: 'a@example.test', productId: ebook.id, quantity: 2, couponCode: 'hemat10' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ subtotal: 5000, discountCode: 'HEMAT10', discountAmount: 500, amount: 4500 });
    expect(await ManualOrder.findByPk(res.body.data.id)).toMatchObject({ discountId: coupon.id, discountApplied: null });
    expect((await DiscountCode.findByPk(coupon.id))!.usesTotal).toBe(0);
  });

  it('refuses a code that does not apply with its reason, writing nothing (the order number is not taken)', async () => {
    const { ws, ebook } = await manualStore(t.ctx);
    await insertCoupon(ws, { code: 'OLD', expiresAt: new Date(Date.now() - 60_000) });
    const res = await expectRefusedWithoutWrites(ws.accountId, () => placeOrder(t.api.baseUrl, ws, { email: 'a@example.test', productId: ebook.id, couponCode: 'OLD' }), 400, 'VALIDATION_ERROR');
    expect(res.body.error!.details).toEqual([expect.objectContaining({ field: 'couponCode', reason: 'EXPIRED' })]);
    const next = await placeOrder(t.api.baseUrl, ws, { email: 'a@example.test', productId: ebook.id });
    expect(next.body.data.orderNumber).toBe(`${prefixOf(ws.slug)}-0001`);
  });

  it('needs a shipping address for a physical product, and keeps it on the order', async () => {
    const { ws, shirt } = await manualStore(t.ctx);
    const res = await expectRefusedWithoutWrites(
      ws.accountId,
      () => placeOrder(t.api.baseUrl, ws, { email: 'a@example.test', items: [{ productId: shirt.id, quantity: 1 }] }),
      400,
      'VALIDATION_ERROR',
    );
    expect(res.body.error!.details).toEqual([expect.objectContaining({ field: 'shippingAddress' })]);

    const placed = await placeOrder(t.api.baseUrl, ws, { email: 'a@example.test', productSlug: shirt.slug, shippingAddress: SHIPPING_ADDRESS, paymentMethod: 'cod' });
    expect(placed.status).toBe(201);
    expect(await ManualOrder.findByPk(placed.body.data.id)).toMatchObject({ shippingAddress: SHIPPING_ADDRESS, paymentMethod: 'cod', amount: 4000 });
  });

  it.each([
    ['no product at all', { email: 'a@example.test' }, 'items'],
    ['productSlug and productId', { email: 'a@example.test', productSlug: 'x', productId: 'prod_x' }, 'productId'],
    ['productId and items', { email: 'a@example.test', productId: 'prod_x', items: [{ productId: 'prod_x', quantity: 1 }] }, 'items'],
    ['items with a top-level quantity', { email: 'a@example.test', items: [{ productId: 'prod_x', quantity: 1 }], quantity: 2 }, 'quantity'],
    ['a hosted-page field', { email: 'a@example.test', productId: 'prod_x', successUrl: 'https://shop.example/thanks' }, 'successUrl'],
    ['no e-mail', { productId: 'prod_x' }, 'email'],
    ['a malformed e-mail', { email: 'not an address', productId: 'prod_x' }, 'email'],
    ['an unknown payment method', { email: 'a@example.test', productId: 'prod_x', paymentMethod: 'card' }, 'paymentMethod'],
    ['quantity 0', { email: 'a@example.test', productId: 'prod_x', quantity: 0 }, 'quantity'],
    ['an unknown country', { email: 'a@example.test', productId: 'prod_x', shippingAddress: { ...SHIPPING_ADDRESS, country: 'ZZ' } }, 'shippingAddress.country'],
  ])('refuses a body with %s (400 naming the field), writing nothing', async (_case, body, field) => {
    const { ws } = await manualStore(t.ctx);
    const res = await expectRefusedWithoutWrites(ws.accountId, () => placeOrder(t.api.baseUrl, ws, body), 400, 'VALIDATION_ERROR');
    expect(res.body.error!.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  });

  it('refuses products the buyer cannot buy: unknown slug or id, unpublished, another environment, a subscription', async () => {
    const { ws } = await manualStore(t.ctx);
    const hidden = await insertCartProduct(ws, { published: false });
    const live = await insertCartProduct({ accountId: ws.accountId, environment: 'live' });
    const subscription = await insertCartProduct(ws, { type: 'subscription' });
    for (const [body, field] of [
      [{ productSlug: 'no-such-product' }, 'productSlug'],
      [{ productSlug: hidden.slug }, 'productSlug'],
      [{ productId: hidden.id }, 'productId'],
      [{ productId: live.id }, 'productId'],
      [{ items: [{ productId: subscription.id, quantity: 1 }] }, 'items.0.productId'],
    ] as const) {
      const res = await expectRefusedWithoutWrites(ws.accountId, () => placeOrder(t.api.baseUrl, ws, { email: 'a@example.test', ...body }), 400, 'VALIDATION_ERROR');
      expect(res.body.error!.details).toEqual([expect.objectContaining({ field })]);
    }
  });

  it('is refused with 409 INVALID_STATE for a workspace with the payment module on, writing nothing', async () => {
    const { ws, ebook } = await manualStore(t.ctx);
    await Account.update({ paymentEnabled: true }, { where: { id: ws.accountId } });
    const res = await expectRefusedWithoutWrites(ws.accountId, () => placeOrder(t.api.baseUrl, ws, { email: 'a@example.test', productId: ebook.id }), 409, 'INVALID_STATE');
    expect(res.body.error!.message).toMatch(/payment module/);
  });

  it('answers 404 for an unknown merchant, and places a keyless order in the live environment', async () => {
    const { ws, ebook } = await manualStore(t.ctx);
    expectError(await placeOrder(t.api.baseUrl, { slug: 'no-such-store-anywhere', publishableKey: ws.publishableKey }, { email: 'a@example.test', productId: ebook.id }, { key: null }), 404, 'RESOURCE_NOT_FOUND');
    // The fixture's products are in the test environment: keyless, the live catalogue has none of them.
    expectError(await placeOrder(t.api.baseUrl, ws, { email: 'a@example.test', productId: ebook.id }, { key: null }), 400, 'VALIDATION_ERROR');
    const live = await insertCartProduct({ accountId: ws.accountId, environment: 'live' }, { price: 150_000, currency: 'IDR' });
    const res = await placeOrder(t.api.baseUrl, ws, { email: 'a@example.test', productId: live.id }, { key: null });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ orderNumber: `${prefixOf(ws.slug)}-0001`, amount: 150_000, currency: 'IDR' });
    expect(await ManualOrder.findByPk(res.body.data.id)).toMatchObject({ environment: 'live' });
  });
});

describe('manual checkout: rate limit', () => {
  it('allows 10 per minute per IP and merchant (the checkout-create budget): the 11th is 429 with Retry-After; another merchant is unaffected', async () => {
    const a = await manualStore(t.ctx);
    const b = await manualStore(t.ctx);
    for (let i = 0; i < 10; i += 1) expect((await placeOrder(t.api.baseUrl, a.ws, { email: 'a@example.test', productId: a.ebook.id })).status).toBe(201);
    const limited = await expectRefusedWithoutWrites(a.ws.accountId, () => placeOrder(t.api.baseUrl, a.ws, { email: 'a@example.test', productId: a.ebook.id }), 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await placeOrder(t.api.baseUrl, b.ws, { email: 'a@example.test', productId: b.ebook.id })).status).toBe(201);
  });
});

describe('manual checkout: order numbers', () => {
  it('gives 50 concurrent orders the numbers 1 to 50 of their workspace environment: no gap, no duplicate', async () => {
    // Each order from its own client address (behind one trusted proxy), so the per-IP limits do not interfere.
    const api = await t.ctx.startApi({ TRUST_PROXY: '1', TEMPORAL_TASK_QUEUE: `manual-checkout-${process.pid}` });
    const { ws, ebook } = await manualStore(t.ctx);
    const other = await manualStore(t.ctx);
    await placeOrder(api.baseUrl, other.ws, { email: 'a@example.test', productId: other.ebook.id });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        placeOrder(api.baseUrl, ws, { email: `buyer${i}@example.test`, productId: ebook.id }, { headers: { 'x-forwarded-for': `10.0.${Math.floor(i / 200)}.${(i % 200) + 1}` } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const prefix = prefixOf(ws.slug);
    const numbers = results.map((r) => r.body.data.orderNumber).sort();
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => formatOrderNumber(prefix, i + 1)).sort());
    const rows = await ManualOrder.findAll({ where: tenantOf(ws), order: [['seq', 'ASC']] });
    expect(rows.map((row) => row.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // The other workspace counts on its own, as does this one's live environment.
    expect((await ManualOrder.findAll({ where: tenantOf(other.ws) })).map((row) => row.orderNumber)).toEqual([`${prefixOf(other.ws.slug)}-0001`]);
  });

  it('gives a rolled-back order’s number to the next order', async () => {
    const { ws } = await manualStore(t.ctx);
    const tenant = tenantOf(ws);
    await t.ctx.sequelize.transaction((tx) => nextManualOrderSeq(tx, tenant));
    await expect(
      t.ctx.sequelize.transaction(async (tx) => {
        expect(await nextManualOrderSeq(tx, tenant)).toBe(2);
        throw new Error('the order failed after taking its number');
      }),
    ).rejects.toThrow('the order failed');
    expect(await t.ctx.sequelize.transaction((tx) => nextManualOrderSeq(tx, tenant))).toBe(2);
  });

  it('takes the prefix from the slug’s first word, upper-cased, at most 8 characters', () => {
    expect(orderNumberPrefix('warung-budi')).toBe('WARUNG');
    expect(orderNumberPrefix('acme')).toBe('ACME');
    expect(orderNumberPrefix('supercalifragilistic-shop')).toBe('SUPERCAL');
    expect(orderNumberPrefix('-7-eleven')).toBe('7');
    expect(orderNumberPrefix('--')).toBe('ORDER');
    expect(formatOrderNumber('ACME', 7)).toBe('ACME-0007');
    expect(formatOrderNumber('ACME', 12_345)).toBe('ACME-12345');
  });
});

describe('manual checkout: keys', () => {
  it('refuses a key of another workspace (403)', async () => {
    const { ws, ebook } = await manualStore(t.ctx);
    const other = await t.ctx.createWorkspace();
    const res = await http(t.api.baseUrl, 'POST', `/api/v1/storefront/public/${ws.slug}/manual-checkout`, { key: other.publishableKey, body: { email: 'a@example.test', productId: ebook.id } });
    expectError(res, 403, 'FORBIDDEN');
  });
});
