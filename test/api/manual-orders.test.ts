import { QueryTypes } from 'sequelize';
import { AuditLog, DiscountCode, DiscountRedemption, EmailMessage, ManualOrder, ReferralLink } from '../../db/models';
import { workflowIds } from '../../workflows/messages';
import { insertCoupon } from '../fixtures/cart';
import { testEmailBox } from '../fixtures/emails';
import { insertManualOrder, manualOrderWrites, manualStore, placeOrder, SHIPPING_ADDRESS } from '../fixtures/manual-orders';
import { insertReferralLink } from '../fixtures/referrals';
import { tenantOf } from '../fixtures/workspaces';
import { http, useTestApi, type HttpResult } from '../helpers/context';
import { expectError } from '../helpers/expect';

const t = useTestApi({ TEMPORAL_TASK_QUEUE: `manual-orders-${process.pid}` });

type Order = Record<string, unknown> & { id: string; orderNumber: string; paymentStatus: string; fulfillmentStatus: string };
type Answer = HttpResult<{ data: Order; error: { code: string; message: string; details?: Record<string, unknown> } | null }>;

const patch = (key: string, id: string, body: unknown, headers?: Record<string, string>): Promise<Answer> =>
  http(t.api.baseUrl, 'PATCH', `/api/v1/manual-orders/${id}`, { key, body, headers });
const retrieve = (key: string, id: string): Promise<Answer> => http(t.api.baseUrl, 'GET', `/api/v1/manual-orders/${id}`, { key });
const list = (key: string, query = '') => http<{ data: Order[]; meta: { page: { nextCursor: string | null } } }>(t.api.baseUrl, 'GET', `/api/v1/manual-orders${query}`, { key });

async function emailsOf(accountId: string, kind: string) {
  return EmailMessage.findAll({ where: { accountId, kind } });
}

const bodyOf = (email: EmailMessage) => JSON.parse(testEmailBox.open(email.body!)) as { html: string; text: string };

async function startsOf(accountId: string): Promise<string[]> {
  const rows = await t.ctx.sequelize.query<{ workflow_id: string }>('SELECT workflow_id FROM workflow_starts WHERE account_id = :accountId ORDER BY id', {
    type: QueryTypes.SELECT,
    replacements: { accountId },
  });
  return rows.map((row) => row.workflow_id);
}

/** A store and one order placed through the manual checkout (a physical shirt unless `digital`). */
async function placed(options: { digital?: boolean; body?: Record<string, unknown> } = {}) {
  const store = await manualStore(t.ctx);
  const product = options.digital ? { productId: store.ebook.id } : { productId: store.shirt.id, shippingAddress: SHIPPING_ADDRESS };
  const res = await placeOrder(t.api.baseUrl, store.ws, { email: 'budi@example.test', name: 'Budi <b>', phone: '+62 812', ...product, ...options.body });
  expect(res.status).toBe(201);
  return { ...store, key: store.ws.secretKey, id: res.body.data.id, orderNumber: res.body.data.orderNumber };
}

/** Asserts a 409 INVALID_STATE naming the order's current state, and that it wrote nothing. */
async function expectRefusedMove(order: { ws: { accountId: string }; key: string; id: string }, body: Record<string, unknown>, current: { paymentStatus: string; fulfillmentStatus: string }, message: RegExp) {
  const before = await manualOrderWrites(t.ctx.sequelize, order.ws.accountId);
  const res = await patch(order.key, order.id, body);
  expectError(res, 409, 'INVALID_STATE');
  expect(res.body.error!.details).toEqual(current);
  expect(res.body.error!.message).toMatch(message);
  expect(await manualOrderWrites(t.ctx.sequelize, order.ws.accountId)).toEqual(before);
}

describe('GET /v1/manual-orders', () => {
  it('lists 25 a page by default, newest first by placedAt, with the list fields only; limit is clamped to 1..100', async () => {
    const own = await manualStore(t.ctx);
    const created: string[] = [];
    for (let i = 0; i < 27; i += 1) created.push((await insertManualOrder(t.ctx.sequelize, own.ws, own.ebook.id, { customerPhone: '+62 1', shippingAddress: SHIPPING_ADDRESS, merchantPaymentNote: 'n', referralCode: 'r' })).id);
    const first = await list(own.ws.secretKey);
    expect(first.status).toBe(200);
    expect(first.body.data.map((o) => o.id)).toEqual([...created].reverse().slice(0, 25));
    const placedAts = first.body.data.map((o) => o.placedAt as string);
    expect([...placedAts].sort().reverse()).toEqual(placedAts);
    const second = await list(own.ws.secretKey, `?cursor=${first.body.meta.page.nextCursor}`);
    expect(second.body.data.map((o) => o.id)).toEqual([created[1], created[0]]);
    expect(second.body.meta.page.nextCursor).toBeNull();

    const row = first.body.data[0]!;
    expect(row).toMatchObject({ accountId: own.ws.accountId, customerName: 'Budi', customerEmail: 'budi@example.test' });
    for (const retrieveOnly of ['customerPhone', 'shippingAddress', 'merchantPaymentNote', 'merchantShippingNote', 'referralCode']) expect(row).not.toHaveProperty(retrieveOnly);

    expect((await list(own.ws.secretKey, '?limit=0')).body.data).toHaveLength(1);
    expect((await list(own.ws.secretKey, '?limit=1000')).body.data).toHaveLength(27);
    expectError(await list(own.ws.secretKey, '?limit=ten'), 400, 'VALIDATION_ERROR');
  });

  it('filters by paymentStatus and fulfillmentStatus, together or apart; an unknown value is 400', async () => {
    const { ws, ebook } = await manualStore(t.ctx);
    const awaiting = await insertManualOrder(t.ctx.sequelize, ws, ebook.id);
    const confirmed = await insertManualOrder(t.ctx.sequelize, ws, ebook.id, { paymentStatus: 'payment_confirmed', paymentConfirmedAt: new Date() });
    const shipped = await insertManualOrder(t.ctx.sequelize, ws, ebook.id, { paymentStatus: 'payment_confirmed', paymentConfirmedAt: new Date(), fulfillmentStatus: 'shipped', shippedAt: new Date() });
    const canceled = await insertManualOrder(t.ctx.sequelize, ws, ebook.id, { paymentStatus: 'canceled', canceledAt: new Date() });
    const ids = async (query: string) => (await list(ws.secretKey, query)).body.data.map((o) => o.id);
    expect(await ids('?paymentStatus=awaiting_payment')).toEqual([awaiting.id]);
    expect(await ids('?paymentStatus=payment_confirmed')).toEqual([shipped.id, confirmed.id]);
    expect(await ids('?paymentStatus=canceled')).toEqual([canceled.id]);
    expect(await ids('?fulfillmentStatus=shipped')).toEqual([shipped.id]);
    expect(await ids('?fulfillmentStatus=preparing')).toEqual([canceled.id, confirmed.id, awaiting.id]);
    expect(await ids('?paymentStatus=payment_confirmed&fulfillmentStatus=preparing')).toEqual([confirmed.id]);
    expectError(await list(ws.secretKey, '?paymentStatus=paid'), 400, 'VALIDATION_ERROR');
    expectError(await list(ws.secretKey, '?fulfillmentStatus=lost'), 400, 'VALIDATION_ERROR');
  });

  it('lists only the calling environment’s orders, and refuses a publishable key', async () => {
    const { ws, ebook } = await manualStore(t.ctx);
    await insertManualOrder(t.ctx.sequelize, ws, ebook.id);
    expect((await list(ws.liveSecretKey)).body.data).toEqual([]);
    expect((await list(ws.publishableKey)).status).toBe(403);
  });
});

describe('GET /v1/manual-orders/:id', () => {
  it('answers every field, the merchant-only ones included', async () => {
    const order = await placed({ body: { referralCode: 'friend', metadata: { channel: 'instagram' } } });
    const res = await retrieve(order.key, order.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: order.id,
      accountId: order.ws.accountId,
      orderNumber: order.orderNumber,
      productId: order.shirt.id,
      productName: 'Shirt',
      variantId: null,
      variantName: null,
      quantity: 1,
      lines: [{ lineKey: '1', productId: order.shirt.id, productName: 'Shirt', variantId: null, variantName: null, quantity: 1, unitAmount: 4000, amount: 4000 }],
      subtotal: 4000,
      discountCode: null,
      discountAmount: 0,
      discountApplied: null,
      amount: 4000,
      currency: 'USD',
      paymentStatus: 'awaiting_payment',
      fulfillmentStatus: 'preparing',
      customerName: 'Budi <b>',
      customerEmail: 'budi@example.test',
      customerPhone: '+62 812',
      paymentMethod: 'bank_transfer',
      trackingCourier: null,
      trackingNumber: null,
      shippingAddress: SHIPPING_ADDRESS,
      referralCode: 'friend',
      merchantPaymentNote: null,
      merchantShippingNote: null,
      metadata: { channel: 'instagram' },
      placedAt: expect.any(String),
      paymentConfirmedAt: null,
      canceledAt: null,
      shippedAt: null,
      deliveredAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it('is 404 RESOURCE_NOT_FOUND for an unknown id', async () => {
    const { ws } = await manualStore(t.ctx);
    expectError(await retrieve(ws.secretKey, 'mord_01JD4X7V1QZ8N6Y3K2M5P9R0TS'), 404, 'RESOURCE_NOT_FOUND');
    expectError(await patch(ws.secretKey, 'mord_01JD4X7V1QZ8N6Y3K2M5P9R0TS', { merchantPaymentNote: 'x' }), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('PATCH /v1/manual-orders/:id: payment', () => {
  it('awaiting_payment → payment_confirmed stamps paymentConfirmedAt and e-mails the buyer; a physical order starts no fulfillment', async () => {
    const order = await placed();
    const before = Date.now();
    const res = await patch(order.key, order.id, { paymentStatus: 'payment_confirmed', merchantPaymentNote: 'Seen in BCA, 3 May' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ paymentStatus: 'payment_confirmed', fulfillmentStatus: 'preparing', merchantPaymentNote: 'Seen in BCA, 3 May', customerPhone: '+62 812' });
    const confirmedAt = Date.parse(res.body.data.paymentConfirmedAt as string);
    expect(confirmedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(confirmedAt).toBeLessThanOrEqual(Date.now() + 1000);

    const [mail] = await emailsOf(order.ws.accountId, 'payment_confirmed');
    expect(mail).toMatchObject({ businessKey: `payment_confirmed:${order.id}`, toAddress: 'budi@example.test', subject: `Payment received for order ${order.orderNumber}` });
    expect(bodyOf(mail!).text).toContain('$40.00');
    expect(await startsOf(order.ws.accountId)).not.toContain(workflowIds.manualOrder(order.id));
    expect(await AuditLog.findOne({ where: { accountId: order.ws.accountId, action: 'manual_order.updated', targetId: order.id } })).toMatchObject({
      data: { fields: ['paymentStatus', 'merchantPaymentNote'], from: { paymentStatus: 'awaiting_payment' }, to: { paymentStatus: 'payment_confirmed' } },
    });
  });

  it('confirming an order with digital or licence lines records the durable start of manual-order:<mord>', async () => {
    const order = await placed({ digital: true });
    expect((await patch(order.key, order.id, { paymentStatus: 'payment_confirmed' })).status).toBe(200);
    const starts = await startsOf(order.ws.accountId);
    expect(starts.filter((id) => id === workflowIds.manualOrder(order.id))).toHaveLength(1);
  });

  it('counts the discount code’s use and the referral’s conversion at confirmation; a code used up meanwhile keeps the price quoted', async () => {
    const store = await manualStore(t.ctx);
    const coupon = await insertCoupon(store.ws, { code: 'ONCE', maxUsesTotal: 1 });
    const link = await insertReferralLink(store.ws, { code: 'friend' });
    const place = async () => (await placeOrder(t.api.baseUrl, store.ws, { email: 'a@example.test', productId: store.ebook.id, couponCode: 'ONCE', referralCode: 'FRIEND' })).body.data;
    const first = await place();
    const second = await place();
    const confirm = (id: string) => patch(store.ws.secretKey, id, { paymentStatus: 'payment_confirmed' });
    expect((await confirm(first.id)).body.data).toMatchObject({ discountApplied: true, amount: 2250 });
    expect((await confirm(second.id)).body.data).toMatchObject({ discountApplied: false, amount: 2250 });
    expect((await DiscountCode.findByPk(coupon.id))!.usesTotal).toBe(1);
    expect(await DiscountRedemption.findAll({ where: { discountId: coupon.id } })).toEqual([expect.objectContaining({ reference: first.id, amount: 250 })]);
    expect((await ReferralLink.findByPk(link.id))!.conversions).toBe(2);
  });

  it('awaiting_payment → canceled stamps canceledAt and mails nothing', async () => {
    const order = await placed();
    const res = await patch(order.key, order.id, { paymentStatus: 'canceled' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ paymentStatus: 'canceled', canceledAt: expect.any(String), paymentConfirmedAt: null });
    expect(await EmailMessage.count({ where: { accountId: order.ws.accountId } })).toBe(1); // the instructions only
  });

  const AWAITING = { paymentStatus: 'awaiting_payment', fulfillmentStatus: 'preparing' };
  const CONFIRMED = { paymentStatus: 'payment_confirmed', fulfillmentStatus: 'preparing' };
  const CANCELED = { paymentStatus: 'canceled', fulfillmentStatus: 'preparing' };

  it.each([
    ['payment_confirmed → canceled (refunds happen outside the API)', 'payment_confirmed', { paymentStatus: 'canceled' }, CONFIRMED, /is payment_confirmed: a confirmed order cannot be canceled/],
    ['payment_confirmed → payment_confirmed (a second confirmation)', 'payment_confirmed', { paymentStatus: 'payment_confirmed' }, CONFIRMED, /is already payment_confirmed/],
    ['payment_confirmed → awaiting_payment', 'payment_confirmed', { paymentStatus: 'awaiting_payment' }, CONFIRMED, /is payment_confirmed: a confirmed payment cannot be undone/],
    ['canceled → payment_confirmed', 'canceled', { paymentStatus: 'payment_confirmed' }, CANCELED, /is canceled, which is final/],
    ['canceled → awaiting_payment', 'canceled', { paymentStatus: 'awaiting_payment' }, CANCELED, /is canceled, which is final/],
    ['canceled → canceled', 'canceled', { paymentStatus: 'canceled' }, CANCELED, /is already canceled/],
    ['awaiting_payment → awaiting_payment', null, { paymentStatus: 'awaiting_payment' }, AWAITING, /is already awaiting_payment/],
    ['a fulfillment move of a canceled order', 'canceled', { fulfillmentStatus: 'shipped' }, CANCELED, /is canceled: a canceled order's fulfillment does not move/],
    ['canceling and shipping at once', null, { paymentStatus: 'canceled', fulfillmentStatus: 'shipped' }, AWAITING, /is being canceled/],
    ['a refused move with a note (the note is not saved either)', 'payment_confirmed', { paymentStatus: 'canceled', merchantPaymentNote: 'refunded' }, CONFIRMED, /cannot be canceled/],
  ])('refuses %s: 409 INVALID_STATE naming the current state, writing nothing', async (_case, reached, body, current, message) => {
    const order = await placed();
    if (reached) expect((await patch(order.key, order.id, { paymentStatus: reached })).status).toBe(200);
    await expectRefusedMove(order, body, current, message);
  });

  it('lets exactly one of ten concurrent confirmations through (row lock): one e-mail, one fulfillment start', async () => {
    const order = await placed({ digital: true });
    const results = await Promise.all(Array.from({ length: 10 }, () => patch(order.key, order.id, { paymentStatus: 'payment_confirmed' })));
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    for (const refused of results.filter((r) => r.status === 409)) expect(refused.body.error).toMatchObject({ code: 'INVALID_STATE', details: CONFIRMED });
    expect(await emailsOf(order.ws.accountId, 'payment_confirmed')).toHaveLength(1);
    expect((await startsOf(order.ws.accountId)).filter((id) => id === workflowIds.manualOrder(order.id))).toHaveLength(1);
    expect(await AuditLog.count({ where: { targetId: order.id } })).toBe(1);
  });

  it('replays a PATCH sent again with the same Idempotency-Key instead of refusing it', async () => {
    const order = await placed();
    const headers = { 'idempotency-key': `confirm-${order.id}` };
    const first = await patch(order.key, order.id, { paymentStatus: 'payment_confirmed' }, headers);
    const again = await patch(order.key, order.id, { paymentStatus: 'payment_confirmed' }, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    expect(await emailsOf(order.ws.accountId, 'payment_confirmed')).toHaveLength(1);
  });
});

describe('PATCH /v1/manual-orders/:id: fulfillment', () => {
  it('moves forward (ready_to_ship may go back to preparing); shipped stamps shippedAt and e-mails the courier and tracking number; delivered stamps deliveredAt', async () => {
    const order = await placed();
    expect((await patch(order.key, order.id, { fulfillmentStatus: 'ready_to_ship' })).body.data).toMatchObject({ fulfillmentStatus: 'ready_to_ship', shippedAt: null });
    expect((await patch(order.key, order.id, { fulfillmentStatus: 'preparing' })).body.data).toMatchObject({ fulfillmentStatus: 'preparing' });
    // Cash on delivery: shipping before the payment is confirmed is allowed.
    const shipped = await patch(order.key, order.id, { fulfillmentStatus: 'shipped', trackingCourier: 'JNE <REG>', trackingNumber: 'JNE123' });
    expect(shipped.status).toBe(200);
    expect(shipped.body.data).toMatchObject({ paymentStatus: 'awaiting_payment', fulfillmentStatus: 'shipped', trackingCourier: 'JNE <REG>', trackingNumber: 'JNE123', shippedAt: expect.any(String) });
    const [mail] = await emailsOf(order.ws.accountId, 'shipping_notification');
    expect(mail).toMatchObject({ businessKey: `shipping_notification:${order.id}`, subject: `Your order ${order.orderNumber} has shipped` });
    const { text, html } = bodyOf(mail!);
    expect(text).toContain('Courier: JNE <REG>');
    expect(text).toContain('Tracking number: JNE123');
    expect(html).toContain('JNE &lt;REG&gt;');

    const delivered = await patch(order.key, order.id, { fulfillmentStatus: 'delivered' });
    expect(delivered.body.data).toMatchObject({ fulfillmentStatus: 'delivered', deliveredAt: expect.any(String), shippedAt: shipped.body.data.shippedAt });
    expect(await emailsOf(order.ws.accountId, 'shipping_notification')).toHaveLength(1);
  });

  it('may skip steps: preparing → delivered leaves shippedAt unset and mails nothing', async () => {
    const order = await placed();
    const res = await patch(order.key, order.id, { fulfillmentStatus: 'delivered' });
    expect(res.body.data).toMatchObject({ fulfillmentStatus: 'delivered', shippedAt: null, deliveredAt: expect.any(String) });
    expect(await emailsOf(order.ws.accountId, 'shipping_notification')).toEqual([]);
  });

  it('confirms and ships in one PATCH: both e-mails, both stamps', async () => {
    const order = await placed();
    const res = await patch(order.key, order.id, { paymentStatus: 'payment_confirmed', fulfillmentStatus: 'shipped' });
    expect(res.body.data).toMatchObject({ paymentStatus: 'payment_confirmed', fulfillmentStatus: 'shipped', paymentConfirmedAt: expect.any(String), shippedAt: expect.any(String) });
    expect((await EmailMessage.findAll({ where: { accountId: order.ws.accountId } })).map((m) => m.kind).sort()).toEqual(['manual_order_instructions', 'payment_confirmed', 'shipping_notification']);
  });

  it.each([
    ['shipped → preparing', ['shipped'], 'preparing', 'shipped', /is shipped: it cannot go back to preparing/],
    ['shipped → ready_to_ship', ['shipped'], 'ready_to_ship', 'shipped', /is shipped: it cannot go back to ready_to_ship/],
    ['delivered → shipped', ['shipped', 'delivered'], 'shipped', 'delivered', /is delivered: it cannot go back to shipped/],
    ['delivered → preparing', ['delivered'], 'preparing', 'delivered', /is delivered: it cannot go back/],
  ])('refuses %s: 409 INVALID_STATE naming the current state, writing nothing', async (_case, path, to, current, message) => {
    const order = await placed();
    for (const step of path) expect((await patch(order.key, order.id, { fulfillmentStatus: step })).status).toBe(200);
    await expectRefusedMove(order, { fulfillmentStatus: to }, { paymentStatus: 'awaiting_payment', fulfillmentStatus: current }, message);
  });

  it('answers the current status asked again with 200 and changes nothing: preparing → preparing, shipped → shipped (no second stamp or e-mail)', async () => {
    const order = await placed();
    const same = await patch(order.key, order.id, { fulfillmentStatus: 'preparing' });
    expect(same.status).toBe(200);
    expect(same.body.data).toMatchObject({ paymentStatus: 'awaiting_payment', fulfillmentStatus: 'preparing', shippedAt: null, deliveredAt: null });

    const shipped = await patch(order.key, order.id, { fulfillmentStatus: 'shipped' });
    const again = await patch(order.key, order.id, { fulfillmentStatus: 'shipped', trackingNumber: 'JNE999' });
    expect(again.status).toBe(200);
    // The body's other fields still apply; the shipment is not stamped or mailed twice.
    expect(again.body.data).toMatchObject({ fulfillmentStatus: 'shipped', trackingNumber: 'JNE999', shippedAt: shipped.body.data.shippedAt });
    expect(await emailsOf(order.ws.accountId, 'shipping_notification')).toHaveLength(1);
  });
});

describe('PATCH /v1/manual-orders/:id: tracking and notes', () => {
  it('sets the text fields; null or "" clears them; they change on any order, canceled too', async () => {
    const order = await placed();
    await patch(order.key, order.id, { paymentStatus: 'canceled' });
    const set = await patch(order.key, order.id, { trackingCourier: 'SiCepat', trackingNumber: '0042', merchantPaymentNote: 'Line one\nline two', merchantShippingNote: 'Fragile' });
    expect(set.body.data).toMatchObject({ trackingCourier: 'SiCepat', trackingNumber: '0042', merchantPaymentNote: 'Line one\nline two', merchantShippingNote: 'Fragile' });
    const cleared = await patch(order.key, order.id, { trackingCourier: null, trackingNumber: '', merchantPaymentNote: '  ', merchantShippingNote: null });
    expect(cleared.body.data).toMatchObject({ trackingCourier: null, trackingNumber: null, merchantPaymentNote: null, merchantShippingNote: null });
  });

  it.each([
    ['an empty body', {}],
    ['an unknown field', { amount: 1 }],
    ['a tracking number over 80 characters', { trackingNumber: 'x'.repeat(81) }],
    ['a courier with a line break', { trackingCourier: 'JNE\nREG' }],
    ['a note over 1000 characters', { merchantShippingNote: 'x'.repeat(1001) }],
    ['an unknown status', { paymentStatus: 'paid' }],
    ['an unknown fulfillment status', { fulfillmentStatus: 'lost' }],
  ])('refuses %s with 400 VALIDATION_ERROR, writing nothing', async (_case, body) => {
    const order = await placed();
    const before = await manualOrderWrites(t.ctx.sequelize, order.ws.accountId);
    expectError(await patch(order.key, order.id, body), 400, 'VALIDATION_ERROR');
    expect(await manualOrderWrites(t.ctx.sequelize, order.ws.accountId)).toEqual(before);
  });

  it('accepts the documented maxima: 80-character tracking fields and 1000-character notes', async () => {
    const order = await placed();
    const res = await patch(order.key, order.id, { trackingNumber: 'x'.repeat(80), merchantShippingNote: 'y'.repeat(1000) });
    expect(res.status).toBe(200);
    expect(await ManualOrder.findByPk(order.id)).toMatchObject({ ...tenantOf(order.ws), trackingNumber: 'x'.repeat(80), merchantShippingNote: 'y'.repeat(1000) });
  });
});
