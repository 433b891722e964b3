import { sameEmail } from '../../domain/manual-orders/tracker';
import { MANUAL_PAYMENT, manualStore, placeOrder, SHIPPING_ADDRESS } from '../fixtures/manual-orders';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';

const t = useTestApi({ TEMPORAL_TASK_QUEUE: `order-tracker-${process.pid}` });

type Status = { orderNumber: string; paymentStatus: string; fulfillmentStatus: string; verified: boolean; order: Record<string, unknown> | null };

const track = (slug: string | null, number: string, query = '', key?: string) =>
  http<{ data: Status }>(t.api.baseUrl, 'GET', `/api/v1/storefront/public/${slug}/order/${encodeURIComponent(number)}${query}`, { key });

/** A store with one order (test environment) that has every private field filled. */
async function trackedOrder() {
  const store = await manualStore(t.ctx);
  const res = await placeOrder(t.api.baseUrl, store.ws, {
    email: 'Siti.Rahma@Example.test',
    name: 'Siti Rahma',
    phone: '+62 811 555',
    productId: store.shirt.id,
    quantity: 2,
    shippingAddress: SHIPPING_ADDRESS,
  });
  expect(res.status).toBe(201);
  await http(t.api.baseUrl, 'PATCH', `/api/v1/manual-orders/${res.body.data.id}`, {
    key: store.ws.secretKey,
    body: { fulfillmentStatus: 'shipped', trackingCourier: 'JNE', trackingNumber: 'TRK-SECRET-77', merchantShippingNote: 'internal note' },
  });
  return { ...store, id: res.body.data.id, orderNumber: res.body.data.orderNumber, key: store.ws.publishableKey };
}

describe('order tracker', () => {
  it('answers only the status summary without an e-mail', async () => {
    const order = await trackedOrder();
    const res = await track(order.ws.slug, order.orderNumber, '', order.key);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ orderNumber: order.orderNumber, paymentStatus: 'awaiting_payment', fulfillmentStatus: 'shipped', verified: false, order: null });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('answers the order’s details to its own e-mail, in any letter case and with surrounding spaces', async () => {
    const order = await trackedOrder();
    const res = await track(order.ws.slug, order.orderNumber.toLowerCase(), `?email=${encodeURIComponent('  siti.rahma@EXAMPLE.test ')}`, order.key);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      orderNumber: order.orderNumber,
      paymentStatus: 'awaiting_payment',
      fulfillmentStatus: 'shipped',
      verified: true,
      order: {
        customerName: 'Siti Rahma',
        lines: [{ productName: 'Shirt', variantName: null, quantity: 2, unitAmount: 4000, amount: 8000 }],
        subtotal: 8000,
        discountCode: null,
        discountAmount: 0,
        amount: 8000,
        currency: 'USD',
        paymentMethod: 'bank_transfer',
        paymentInstructions: {
          bankName: MANUAL_PAYMENT.manualBankName,
          accountNumber: MANUAL_PAYMENT.manualAccountNumber,
          accountHolder: MANUAL_PAYMENT.manualAccountHolder,
          instructions: MANUAL_PAYMENT.manualPaymentInstructions,
          reference: order.orderNumber,
        },
        trackingCourier: 'JNE',
        trackingNumber: 'TRK-SECRET-77',
        placedAt: expect.any(String),
        paymentConfirmedAt: null,
        canceledAt: null,
        shippedAt: expect.any(String),
        deliveredAt: null,
      },
    });
    // Never what is the merchant's alone, even to the buyer.
    for (const secret of ['internal note', '+62 811 555', SHIPPING_ADDRESS.line1, order.ws.accountId, order.id]) expect(JSON.stringify(res.body.data)).not.toContain(secret);
  });

  it('leaks nothing to a wrong e-mail: the answer is byte for byte the one without an e-mail', async () => {
    const order = await trackedOrder();
    const without = await track(order.ws.slug, order.orderNumber, '', order.key);
    for (const wrong of ['other@example.test', 'siti.rahma@example.tes', 'siti.rahma@example.test.', 'Siti Rahma', '%', 'x'.repeat(320)]) {
      const res = await track(order.ws.slug, order.orderNumber, `?email=${encodeURIComponent(wrong)}`, order.key);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(without.body.data);
      // The data only: the envelope's random request id could spell anything.
      for (const secret of ['TRK-SECRET-77', 'Siti', 'Shirt', '8000', 'JNE', MANUAL_PAYMENT.manualAccountNumber]) expect(JSON.stringify(res.body.data)).not.toContain(secret);
    }
  });

  it('is 404 for an unknown number, another environment’s order, or an unknown store', async () => {
    const order = await trackedOrder();
    expectError(await track(order.ws.slug, `${order.orderNumber}9`, '', order.key), 404, 'RESOURCE_NOT_FOUND');
    // Keyless reads the live environment, where this test-environment order does not exist.
    expectError(await track(order.ws.slug, order.orderNumber), 404, 'RESOURCE_NOT_FOUND');
    expectError(await track('no-such-store-anywhere', order.orderNumber), 404, 'RESOURCE_NOT_FOUND');
    // Another store with the same order number answers its own order, or none.
    const other = await manualStore(t.ctx);
    expectError(await track(other.ws.slug, order.orderNumber, '', other.ws.publishableKey), 404, 'RESOURCE_NOT_FOUND');
  });

  it('refuses a malformed e-mail query (a line break) with 400', async () => {
    const order = await trackedOrder();
    expectError(await track(order.ws.slug, order.orderNumber, '?email=a%0Ab', order.key), 400, 'VALIDATION_ERROR');
  });

  it('rate limits per IP: 30 lookups a minute across stores, the 31st is 429 with Retry-After', async () => {
    // An API of its own behind a trusted proxy, so this client address is this test's alone.
    const api = await t.ctx.startApi({ TRUST_PROXY: '1', TEMPORAL_TASK_QUEUE: `order-tracker-${process.pid}` });
    const a = await trackedOrder();
    const b = await trackedOrder();
    const ask = (o: typeof a, ip: string) =>
      http(api.baseUrl, 'GET', `/api/v1/storefront/public/${o.ws.slug}/order/${o.orderNumber}?email=guess@example.test`, { key: o.key, headers: { 'x-forwarded-for': ip } });
    for (let i = 0; i < 30; i += 1) expect((await ask(i % 2 ? a : b, '10.9.9.9')).status).toBe(200);
    const limited = await ask(a, '10.9.9.9');
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expectError(await ask(b, '10.9.9.9'), 429, 'RATE_LIMITED');
    expect((await ask(a, '10.9.9.10')).status).toBe(200);
  });
});

describe('sameEmail', () => {
  it('matches normalised values only', () => {
    expect(sameEmail(' A@B.test ', 'a@b.test')).toBe(true);
    expect(sameEmail('e\u0301@b.test', '\u00e9@b.test')).toBe(true);
    expect(sameEmail('a@b.test', 'a@b.tes')).toBe(false);
    expect(sameEmail('', 'a@b.test')).toBe(false);
  });
});
