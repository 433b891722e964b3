import { QueryTypes } from 'sequelize';
import { CheckoutSession } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { expireCheckoutIfOpen } from '../../domain/checkout/expiry';
import { createCheckoutFulfillment, FULFILLMENT_STEPS, planCheckoutFulfillment } from '../../domain/checkout/fulfillment';
import { commitReservations, releaseReservations, reserveForLines } from '../../domain/inventory/reservations';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { loadConfig, requireEncryptionKey } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import { AppError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { checkoutApiEnv, checkoutSnapshot, CHECKOUT_SESSIONS, type CheckoutSessionDto } from '../helpers/checkout';
import { http, useTestApi, type HttpResult } from '../helpers/context';
import { createDiscountCode } from '../helpers/discounts';
import { expectError } from '../helpers/expect';
import {
  adjustStock,
  createVariant,
  createWarehouse,
  expectLogMatchesRow,
  INVENTORY,
  inventorySnapshot,
  stockOf,
  switchFulfillment,
  type VariantDto,
  type WarehouseDto,
} from '../helpers/inventory';
import { buyerPost, createProduct } from '../helpers/storefront';

const t = useTestApi(checkoutApiEnv());
const config = loadConfig(process.env);
const fulfillment = () => createCheckoutFulfillment({ sequelize: t.ctx.sequelize, config, box: createCryptoBox(requireEncryptionKey(config)) });

const PUBLIC = '/api/v1/storefront/public';
const DAY = 24 * 60 * 60 * 1000;
type Json = Record<string, unknown>;
type Created = { data: { checkoutSessionId: string; hostedUrl: string } };

interface Shop {
  ws: CreatedWorkspace;
  tenant: Tenant;
  /** The default warehouse, created first. */
  main: WarehouseDto;
  spare: WarehouseDto;
  /** A physical product at 10 USD. */
  product: { id: string; slug: string };
  /** Its first (so default) variant, `priceDelta` 5. */
  variant: VariantDto;
}

/** A workspace with the module on, warehouses Main (default) and Spare, and a 10 USD mug whose default variant costs 15; `stock` units in Main. */
async function shop({ stock = 10 }: { stock?: number } = {}): Promise<Shop> {
  const ws = await t.ctx.createWorkspace();
  await switchFulfillment(t.api.baseUrl, ws.secretKey, true);
  const main = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Main' });
  const spare = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Spare' });
  const product = await createProduct(t.api.baseUrl, ws.secretKey, { name: 'Mug', type: 'physical', weight: 300, price: 10, currency: 'USD' });
  const variant = await createVariant(t.api.baseUrl, ws.secretKey, product.id, { name: 'Blue / M', priceDelta: 5 });
  if (stock > 0) await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: stock, reason: 'initial_stock' });
  return { ws, tenant: { accountId: ws.accountId, environment: 'test' }, main, spare, product: { id: product.id, slug: String(product.slug) }, variant };
}

const address = { name: 'Budi', line1: 'Jl. Sudirman 1', city: 'Jakarta', country: 'ID' };
const buyer = { email: 'buyer@example.com', shippingAddress: address };

/** A buy-now of the shop's mug through its test catalogue (the merchant's pk_test key), from a loopback address of its own. */
const buyNow = (s: Shop, body: Json = {}, productSlug = s.product.slug) =>
  buyerPost<Created>(t.api.baseUrl, `${PUBLIC}/${s.ws.slug}/${productSlug}/checkout`, { ...buyer, ...body }, { key: s.ws.publishableKey });

const cartCheckout = (s: Shop, items: Json[]) => buyerPost<Created>(t.api.baseUrl, `${PUBLIC}/${s.ws.slug}/cart-checkout`, { ...buyer, items }, { key: s.ws.publishableKey });

async function created(res: Promise<HttpResult<Created>>): Promise<CheckoutSession> {
  const answer = await res;
  if (answer.status !== 201) throw new Error(`checkout answered ${answer.status}: ${answer.text}`);
  return (await CheckoutSession.findByPk(answer.body.data.checkoutSessionId))!;
}

interface ReservationRow {
  reference: string;
  variantId: string;
  warehouseId: string;
  quantity: number;
  status: string;
}

async function reservationsOf(accountId: string): Promise<ReservationRow[]> {
  const rows = await t.ctx.sequelize.query<ReservationRow & { quantity: string }>(
    `SELECT reference, variant_id AS "variantId", warehouse_id AS "warehouseId", quantity, status FROM stock_reservations WHERE account_id = :accountId ORDER BY reference, variant_id`,
    { type: QueryTypes.SELECT, replacements: { accountId } },
  );
  return rows.map((row) => ({ ...row, quantity: Number(row.quantity) }));
}

interface MovementSummary {
  kind: string;
  variantId: string;
  warehouseId: string;
  delta: number;
  reservedDelta: number;
  reference: string | null;
  actorType: string;
  actorId: string;
}

/** The workspace's movements in the order they happened. */
async function movementsOf(accountId: string): Promise<MovementSummary[]> {
  const rows = await t.ctx.sequelize.query<Omit<MovementSummary, 'delta' | 'reservedDelta'> & { delta: string; reservedDelta: string }>(
    `SELECT kind, variant_id AS "variantId", warehouse_id AS "warehouseId", delta, reserved_delta AS "reservedDelta", reference, actor_type AS "actorType", actor_id AS "actorId"
       FROM stock_movements WHERE account_id = :accountId ORDER BY seq`,
    { type: QueryTypes.SELECT, replacements: { accountId } },
  );
  return rows.map((row) => ({ ...row, delta: Number(row.delta), reservedDelta: Number(row.reservedDelta) }));
}

/** A (variant, warehouse)'s balances, through the API. */
async function balanceOf(s: Shop, variantId: string, warehouseId: string) {
  const row = (await stockOf(t.api.baseUrl, s.ws.secretKey, variantId)).find((r) => r.warehouseId === warehouseId)!;
  return { available: row.available, reserved: row.reserved };
}

/** Everything a checkout could write: sessions, workflow starts, stock rows, movements, reservations. */
async function everything(accountId: string) {
  return { ...(await checkoutSnapshot(t.ctx.sequelize, accountId)), ...(await inventorySnapshot(t.ctx.sequelize, accountId)), reservations: await reservationsOf(accountId) };
}

/** A refusal: status, code, the named detail, and not one row written. */
async function expectRefused(attempt: () => Promise<HttpResult>, status: number, code: string, accountId: string, detail?: Json): Promise<HttpResult> {
  const before = await everything(accountId);
  const res = await attempt();
  expectError(res, status, code);
  if (detail) expect((res.body.error as { details?: unknown }).details).toEqual(expect.arrayContaining([expect.objectContaining(detail)]));
  expect(await everything(accountId)).toEqual(before);
  return res;
}

/** The session's deadline passed: what its workflow's expiry step does. */
const expire = (s: Shop, sessionId: string) => expireCheckoutIfOpen(t.ctx.sequelize, s.tenant, sessionId, new Date(Date.now() + DAY + 60_000));

/** The merchant confirmed the payment; the workflow's `stock` step then runs (here directly, as its activity does). */
async function completeAndCommit(s: Shop, sessionId: string) {
  await CheckoutSession.update({ status: 'completed', paymentMethod: 'va', paidAt: new Date(), completedAt: new Date() }, { where: { id: sessionId } });
  return fulfillment().runStep(s.tenant, sessionId, FULFILLMENT_STEPS.stock);
}

const workflowActor = (sessionId: string) => ({ actorType: 'workflow', actorId: `checkout-session:${sessionId}` });

describe('variants at checkout', () => {
  it('prices a named variant at price + priceDelta and the line carries the variant’s id and name (buy-now, cart, hosted view)', async () => {
    const s = await shop();
    const red = await createVariant(t.api.baseUrl, s.ws.secretKey, s.product.id, { name: 'Red / L', priceDelta: -3 });
    const session = await created(buyNow(s, { variantId: red.id, quantity: 2 }));
    expect(session.lineItems).toEqual([{ lineKey: '1', productId: s.product.id, variantId: red.id, name: 'Mug', variantName: 'Red / L', quantity: 2, unitAmount: 700, amount: 1_400 }]);
    expect(session.amount).toBe(1_400);
    expect(session.description).toBe('Mug (Red / L) × 2');

    const cart = await created(cartCheckout(s, [{ productId: s.product.id, variantId: s.variant.id, quantity: 1 }, { productId: s.product.id, variantId: red.id, quantity: 1 }]));
    expect(cart.lineItems.map((l) => [l.variantId, l.variantName, l.unitAmount])).toEqual([
      [s.variant.id, 'Blue / M', 1_500],
      [red.id, 'Red / L', 700],
    ]);
    expect(cart.subtotal).toBe(2_200);

    const merchantView = await http<{ data: CheckoutSessionDto }>(t.api.baseUrl, 'GET', `${CHECKOUT_SESSIONS}/${session.id}`, { key: s.ws.secretKey });
    expect(merchantView.body.data.lineItems).toEqual([expect.objectContaining({ variantId: red.id, variantName: 'Red / L' })]);
    const buyerView = await http<{ data: { lineItems: Json[] } }>(t.api.baseUrl, 'GET', `${CHECKOUT_SESSIONS}/${session.id}/public`);
    expect(buyerView.body.data.lineItems).toEqual([{ name: 'Mug (Red / L)', quantity: 2, unitAmount: 700, amount: 1_400 }]);
  });

  it('sells the product’s default variant when none is named, following the default when it moves', async () => {
    const s = await shop({ stock: 0 });
    const red = await createVariant(t.api.baseUrl, s.ws.secretKey, s.product.id, { name: 'Red / L', priceDelta: 1 });
    const first = await created(buyNow(s));
    expect(first.lineItems[0]).toMatchObject({ variantId: s.variant.id, variantName: 'Blue / M', unitAmount: 1_500 });
    expect((await http(t.api.baseUrl, 'PATCH', `${INVENTORY}/variants/${red.id}`, { key: s.ws.secretKey, body: { isDefault: true } })).status).toBe(200);
    const second = await created(cartCheckout(s, [{ productId: s.product.id, quantity: 1 }]));
    expect(second.lineItems[0]).toMatchObject({ variantId: red.id, variantName: 'Red / L', unitAmount: 1_100 });
  });

  it('keeps lines of products without variants as they were: no variant, the product’s price', async () => {
    const s = await shop();
    const ebook = await createProduct(t.api.baseUrl, s.ws.secretKey, { name: 'Ebook', price: 7, currency: 'USD' });
    const session = await created(buyNow(s, {}, String(ebook.slug)));
    expect(session.lineItems).toEqual([{ lineKey: '1', productId: ebook.id, variantId: null, name: 'Ebook', variantName: null, quantity: 1, unitAmount: 700, amount: 700 }]);
  });

  it('refuses a variant that is not an active variant of the product with 400 on variantId, writing nothing', async () => {
    const s = await shop();
    const other = await shop();
    const archived = await createVariant(t.api.baseUrl, s.ws.secretKey, s.product.id, { name: 'Gone' });
    expect((await http(t.api.baseUrl, 'DELETE', `${INVENTORY}/variants/${archived.id}`, { key: s.ws.secretKey })).status).toBe(200);
    const teapot = await createProduct(t.api.baseUrl, s.ws.secretKey, { name: 'Teapot', type: 'physical', weight: 900, price: 30, currency: 'USD' });
    const teapotVariant = await createVariant(t.api.baseUrl, s.ws.secretKey, teapot.id, { name: 'White' });
    const ebook = await createProduct(t.api.baseUrl, s.ws.secretKey, { name: 'Ebook', price: 7, currency: 'USD' });
    const cases: [string, string, string][] = [
      ['unknown', newId('var'), s.product.slug],
      ['archived', archived.id, s.product.slug],
      ['of another product', teapotVariant.id, s.product.slug],
      ['of another workspace', other.variant.id, s.product.slug],
      ['on a product without variants', s.variant.id, String(ebook.slug)],
    ];
    for (const [, variantId, slug] of cases) {
      await expectRefused(() => buyNow(s, { variantId }, slug), 400, 'VALIDATION_ERROR', s.ws.accountId, { field: 'variantId', message: 'no such variant of this product' });
      const productId = slug === s.product.slug ? s.product.id : ebook.id;
      await expectRefused(
        () => cartCheckout(s, [{ productId: teapot.id, quantity: 1 }, { productId, variantId, quantity: 1 }]),
        400,
        'VALIDATION_ERROR',
        s.ws.accountId,
        { field: 'items.1.variantId' },
      );
    }
  });

  it('refuses the same variant twice in a cart, named or as the default, and sells two variants of one product as two lines', async () => {
    const s = await shop();
    const red = await createVariant(t.api.baseUrl, s.ws.secretKey, s.product.id, { name: 'Red / L' });
    const repeat = { field: 'items.1.productId', message: 'repeats items.0.productId: send one item with the total quantity' };
    await expectRefused(
      () => cartCheckout(s, [{ productId: s.product.id, variantId: red.id, quantity: 1 }, { productId: s.product.id, variantId: red.id, quantity: 1 }]),
      400,
      'VALIDATION_ERROR',
      s.ws.accountId,
      repeat,
    );
    await expectRefused(
      () => cartCheckout(s, [{ productId: s.product.id, variantId: s.variant.id, quantity: 1 }, { productId: s.product.id, quantity: 2 }]),
      400,
      'VALIDATION_ERROR',
      s.ws.accountId,
      repeat,
    );
    const session = await created(cartCheckout(s, [{ productId: s.product.id, quantity: 1 }, { productId: s.product.id, variantId: red.id, quantity: 1 }]));
    expect(session.lineItems.map((l) => l.variantId)).toEqual([s.variant.id, red.id]);
  });

  it('quotes and applies a coupon on the variant’s price (the minimum purchase is met by the priceDelta alone)', async () => {
    const s = await shop();
    // 15 USD with the variant, 10 without: a 12 USD minimum applies only to the variant's price.
    const coupon = await createDiscountCode(t.api.baseUrl, s.ws.secretKey, { currency: 'USD', type: 'percent', value: 10, minPurchaseAmount: 1_200 });
    const quote = await http<{ data: Json }>(t.api.baseUrl, 'POST', `${PUBLIC}/validate-discount`, {
      key: s.ws.publishableKey,
      body: { code: coupon.code, merchantSlug: s.ws.slug, items: [{ productId: s.product.id, variantId: s.variant.id, quantity: 1 }] },
    });
    expect(quote.body.data).toMatchObject({ valid: true, subtotalAmount: 1_500, discountAmount: 150 });
    const byDefault = await http<{ data: Json }>(t.api.baseUrl, 'POST', `${PUBLIC}/validate-discount`, {
      key: s.ws.publishableKey,
      body: { code: coupon.code, merchantSlug: s.ws.slug, items: [{ productId: s.product.id, quantity: 1 }] },
    });
    expect(byDefault.body.data).toMatchObject({ valid: true, subtotalAmount: 1_500 });
    const unknown = await http(t.api.baseUrl, 'POST', `${PUBLIC}/validate-discount`, {
      key: s.ws.publishableKey,
      body: { code: coupon.code, merchantSlug: s.ws.slug, items: [{ productId: s.product.id, variantId: newId('var'), quantity: 1 }] },
    });
    expectError(unknown, 400, 'VALIDATION_ERROR');
    expect((unknown.body.error as { details: Json[] }).details).toEqual([expect.objectContaining({ field: 'items.0.variantId' })]);

    const session = await created(buyNow(s, { couponCode: coupon.code }));
    expect({ subtotal: session.subtotal, discountAmount: session.discountAmount, amount: session.amount }).toEqual({ subtotal: 1_500, discountAmount: 150, amount: 1_350 });
  });

  it('lets the merchant create name an own active variant of its product (default when left out), reserving it; others are 400 on variantId', async () => {
    const s = await shop();
    const red = await createVariant(t.api.baseUrl, s.ws.secretKey, s.product.id, { name: 'Red / L' });
    await adjustStock(t.api.baseUrl, s.ws.secretKey, { variantId: red.id, warehouseId: s.main.id, delta: 4, reason: 'initial_stock' });
    const create = (body: Json) =>
      http<{ data: CheckoutSessionDto }>(t.api.baseUrl, 'POST', CHECKOUT_SESSIONS, {
        key: s.ws.secretKey,
        body: { amount: 3_000, currency: 'USD', description: 'Phone order', customerEmail: 'buyer@example.com', productId: s.product.id, ...body },
      });
    const named = await create({ variantId: red.id, quantity: 3 });
    expect(named.status).toBe(201);
    expect(named.body.data.lineItems).toEqual([{ lineKey: '1', productId: s.product.id, variantId: red.id, name: 'Mug', variantName: 'Red / L', quantity: 3, unitAmount: 1_000, amount: 3_000 }]);
    const byDefault = await create({});
    expect(byDefault.body.data.lineItems[0]).toMatchObject({ variantId: s.variant.id, variantName: 'Blue / M', quantity: 1 });
    expect(await reservationsOf(s.ws.accountId)).toEqual(
      expect.arrayContaining([
        { reference: named.body.data.id, variantId: red.id, warehouseId: s.main.id, quantity: 3, status: 'held' },
        { reference: byDefault.body.data.id, variantId: s.variant.id, warehouseId: s.main.id, quantity: 1, status: 'held' },
      ]),
    );

    const teapot = await createProduct(t.api.baseUrl, s.ws.secretKey, { name: 'Teapot', type: 'physical', weight: 900, price: 30, currency: 'USD' });
    const teapotVariant = await createVariant(t.api.baseUrl, s.ws.secretKey, teapot.id, { name: 'White' });
    for (const variantId of [newId('var'), teapotVariant.id]) {
      await expectRefused(() => create({ variantId }), 400, 'VALIDATION_ERROR', s.ws.accountId, { field: 'variantId' });
    }
    await expectRefused(() => create({ productId: undefined, variantId: red.id }), 400, 'VALIDATION_ERROR', s.ws.accountId, { field: 'variantId' });
    // Red has 1 left in Main.
    await expectRefused(() => create({ variantId: red.id, quantity: 2 }), 409, 'INSUFFICIENT_STOCK', s.ws.accountId, { variantId: red.id, requested: 2, available: 1 });
  });
});

describe('reservation at checkout', () => {
  it('reserves in the creating transaction: available − q, reserved + q, one reserve movement by the session’s workflow, the hold recorded', async () => {
    const s = await shop();
    const session = await created(buyNow(s, { quantity: 3 }));
    expect(await balanceOf(s, s.variant.id, s.main.id)).toEqual({ available: 7, reserved: 3 });
    expect((await movementsOf(s.ws.accountId)).at(-1)).toEqual({
      kind: 'reserve',
      variantId: s.variant.id,
      warehouseId: s.main.id,
      delta: -3,
      reservedDelta: 3,
      reference: session.id,
      ...workflowActor(session.id),
    });
    expect(await reservationsOf(s.ws.accountId)).toEqual([{ reference: session.id, variantId: s.variant.id, warehouseId: s.main.id, quantity: 3, status: 'held' }]);
    await expectLogMatchesRow(t.ctx.sequelize, s.variant.id, s.main.id);
  });

  it('takes the whole quantity from the default warehouse if it has enough, else from the first other active one that has, never split', async () => {
    const s = await shop({ stock: 2 });
    const third = await createWarehouse(t.api.baseUrl, s.ws.secretKey, { name: 'Third' });
    const closed = await createWarehouse(t.api.baseUrl, s.ws.secretKey, { name: 'Closed' });
    const stock = (warehouseId: string, delta: number) => adjustStock(t.api.baseUrl, s.ws.secretKey, { variantId: s.variant.id, warehouseId, delta, reason: 'initial_stock' });
    await stock(s.spare.id, 3);
    await stock(third.id, 6);
    await stock(closed.id, 50);
    expect((await http(t.api.baseUrl, 'DELETE', `${INVENTORY}/warehouses/${closed.id}`, { key: s.ws.secretKey })).status).toBe(200);

    const from = async (quantity: number) => {
      const session = await created(buyNow(s, { quantity }));
      return (await reservationsOf(s.ws.accountId)).find((r) => r.reference === session.id)!.warehouseId;
    };
    expect(await from(2)).toBe(s.main.id); // the default, emptied
    expect(await from(3)).toBe(s.spare.id); // the first other with enough, in creation order
    expect(await from(1)).toBe(third.id); // Spare is empty now
    // Third has 5, nobody has 7: one line is never split over warehouses, and archived ones hold nothing to sell.
    const refused = await expectRefused(() => buyNow(s, { quantity: 7 }), 409, 'INSUFFICIENT_STOCK', s.ws.accountId);
    expect((refused.body.error as { details: unknown }).details).toEqual([
      { message: '7 requested, at most 5 available', variantId: s.variant.id, lineKeys: ['1'], requested: 7, available: 5 },
    ]);
    // A new default is tried first.
    const fresh = await createWarehouse(t.api.baseUrl, s.ws.secretKey, { name: 'Fresh', isDefault: true });
    await stock(fresh.id, 1);
    expect(await from(1)).toBe(fresh.id);
  });

  it('refuses a cart with any short variant with 409 INSUFFICIENT_STOCK naming each short line, reserving nothing for the others', async () => {
    const s = await shop({ stock: 5 });
    const red = await createVariant(t.api.baseUrl, s.ws.secretKey, s.product.id, { name: 'Red / L' });
    const green = await createVariant(t.api.baseUrl, s.ws.secretKey, s.product.id, { name: 'Green / S' });
    await adjustStock(t.api.baseUrl, s.ws.secretKey, { variantId: red.id, warehouseId: s.spare.id, delta: 1, reason: 'initial_stock' });
    await adjustStock(t.api.baseUrl, s.ws.secretKey, { variantId: green.id, warehouseId: s.main.id, delta: 1, reason: 'initial_stock' });
    await adjustStock(t.api.baseUrl, s.ws.secretKey, { variantId: green.id, warehouseId: s.main.id, delta: -1, reason: 'damaged' });
    const res = await expectRefused(
      () =>
        cartCheckout(s, [
          { productId: s.product.id, variantId: s.variant.id, quantity: 5 },
          { productId: s.product.id, variantId: red.id, quantity: 2 },
          { productId: s.product.id, variantId: green.id, quantity: 1 },
        ]),
      409,
      'INSUFFICIENT_STOCK',
      s.ws.accountId,
    );
    expect((res.body.error as { details: Json[] }).details).toEqual(
      [
        { message: '2 requested, at most 1 available', variantId: red.id, lineKeys: ['2'], requested: 2, available: 1 },
        // Stocked once and sold out: tracked, so refused.
        { message: '1 requested, at most 0 available', variantId: green.id, lineKeys: ['3'], requested: 1, available: 0 },
      ].sort((a, b) => (a.variantId < b.variantId ? -1 : 1)),
    );
    expect(await balanceOf(s, s.variant.id, s.main.id)).toEqual({ available: 5, reserved: 0 });
  });

  it('reserves a cart’s variants in variant id order, one hold per variant', async () => {
    const s = await shop();
    const red = await createVariant(t.api.baseUrl, s.ws.secretKey, s.product.id, { name: 'Red / L' });
    await adjustStock(t.api.baseUrl, s.ws.secretKey, { variantId: red.id, warehouseId: s.spare.id, delta: 3, reason: 'initial_stock' });
    // Sent with the later id first.
    const [later, earlier] = [s.variant.id, red.id].sort().reverse() as [string, string];
    const session = await created(cartCheckout(s, [{ productId: s.product.id, variantId: later, quantity: 1 }, { productId: s.product.id, variantId: earlier, quantity: 2 }]));
    const reserves = (await movementsOf(s.ws.accountId)).filter((m) => m.kind === 'reserve');
    expect(reserves.map((m) => [m.variantId, -m.delta])).toEqual([
      [earlier, 2],
      [later, 1],
    ]);
    expect((await reservationsOf(s.ws.accountId)).map((r) => [r.reference, r.variantId, r.quantity])).toEqual([
      [session.id, earlier, 2],
      [session.id, later, 1],
    ]);
  });

  it('tracks only variants that have a stock row: a never-stocked variant and a product without variants sell without a hold', async () => {
    const s = await shop({ stock: 0 });
    const ebook = await createProduct(t.api.baseUrl, s.ws.secretKey, { name: 'Ebook', price: 7, currency: 'USD' });
    const session = await created(cartCheckout(s, [{ productId: s.product.id, quantity: 4 }, { productId: ebook.id, quantity: 1 }]));
    expect(session.lineItems.map((l) => l.variantId)).toEqual([s.variant.id, null]);
    expect(await reservationsOf(s.ws.accountId)).toEqual([]);
    expect(await movementsOf(s.ws.accountId)).toEqual([]);
  });

  it('reserves nothing while the module is off, and reserves again once it is back on', async () => {
    const s = await shop({ stock: 1 });
    await switchFulfillment(t.api.baseUrl, s.ws.secretKey, false);
    const movementsBefore = await movementsOf(s.ws.accountId);
    const offSession = await created(buyNow(s, { quantity: 5 }));
    expect(offSession.lineItems[0]).toMatchObject({ variantId: s.variant.id, quantity: 5 });
    expect(await reservationsOf(s.ws.accountId)).toEqual([]);
    expect(await movementsOf(s.ws.accountId)).toEqual(movementsBefore);

    await switchFulfillment(t.api.baseUrl, s.ws.secretKey, true);
    await expectRefused(() => buyNow(s, { quantity: 2 }), 409, 'INSUFFICIENT_STOCK', s.ws.accountId);
    const onSession = await created(buyNow(s, { quantity: 1 }));
    expect(await reservationsOf(s.ws.accountId)).toEqual([{ reference: onSession.id, variantId: s.variant.id, warehouseId: s.main.id, quantity: 1, status: 'held' }]);
    // The session sold while the module was off completes without moving stock.
    expect(await completeAndCommit(s, offSession.id)).toBe('applied');
    expect(await balanceOf(s, s.variant.id, s.main.id)).toEqual({ available: 0, reserved: 1 });
  });

  it('holds 50 concurrent buy-now requests for a variant with 10 in stock to exactly 10 sessions; their expiry puts available back to 10, the log matching', async () => {
    const s = await shop({ stock: 10 });
    const answers = await Promise.all(Array.from({ length: 50 }, () => buyNow(s, { variantId: s.variant.id })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    for (const refused of answers.filter((a) => a.status !== 201)) expectError(refused, 409, 'INSUFFICIENT_STOCK');

    const sessionIds = answers.filter((a) => a.status === 201).map((a) => a.body.data.checkoutSessionId);
    expect((await CheckoutSession.findAll({ where: { accountId: s.ws.accountId } })).map((row) => row.id).sort()).toEqual([...sessionIds].sort());
    const starts = await t.ctx.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM workflow_starts WHERE account_id = :accountId', {
      type: QueryTypes.SELECT,
      replacements: { accountId: s.ws.accountId },
    });
    expect(starts[0]!.n).toBe(10);
    expect(await balanceOf(s, s.variant.id, s.main.id)).toEqual({ available: 0, reserved: 10 });
    const reserves = (await movementsOf(s.ws.accountId)).filter((m) => m.kind === 'reserve');
    expect(reserves.map((m) => m.reference).sort()).toEqual([...sessionIds].sort());
    await expectLogMatchesRow(t.ctx.sequelize, s.variant.id, s.main.id);

    for (const id of sessionIds) expect(await expire(s, id)).toBe('expired');
    expect(await balanceOf(s, s.variant.id, s.main.id)).toEqual({ available: 10, reserved: 0 });
    const movements = await movementsOf(s.ws.accountId);
    expect(movements.map((m) => m.kind)).toEqual(['adjust', ...Array<string>(10).fill('reserve'), ...Array<string>(10).fill('release')]);
    for (const release of movements.filter((m) => m.kind === 'release')) {
      expect(release).toMatchObject({ delta: 1, reservedDelta: -1, ...workflowActor(release.reference!) });
    }
    expect(movements.filter((m) => m.kind === 'release').map((m) => m.reference).sort()).toEqual([...sessionIds].sort());
    await expectLogMatchesRow(t.ctx.sequelize, s.variant.id, s.main.id);
    expect((await reservationsOf(s.ws.accountId)).map((r) => r.status)).toEqual(Array<string>(10).fill('released'));
  });

  it('keeps the log summing to the balances under a random mix of concurrent checkouts, adjustments and expiries', async () => {
    const s = await shop({ stock: 20 });
    const quantities = Array.from({ length: 24 }, (_, i) => (i % 3) + 1);
    const adjustments = [5, -3, 7, -2, 4, -6, 1, -1];
    const [checkouts] = await Promise.all([
      Promise.all(quantities.map((quantity) => buyNow(s, { quantity }))),
      Promise.all(
        adjustments.map((delta) =>
          http(t.api.baseUrl, 'POST', `${INVENTORY}/adjust`, { key: s.ws.secretKey, body: { variantId: s.variant.id, warehouseId: s.main.id, delta, reason: delta > 0 ? 'manual_adjust' : 'damaged' } }),
        ),
      ),
    ]);
    for (const answer of checkouts) expect([201, 409]).toContain(answer.status);
    const sold = checkouts.filter((a) => a.status === 201).map((a) => a.body.data.checkoutSessionId);
    const held = await reservationsOf(s.ws.accountId);
    const { reserved } = await expectLogMatchesRow(t.ctx.sequelize, s.variant.id, s.main.id);
    expect(reserved).toBe(held.reduce((sum, r) => sum + r.quantity, 0));
    expect(held.map((r) => r.reference).sort()).toEqual([...sold].sort());

    // Half expire, half complete, concurrently with more adjustments.
    await Promise.all([
      ...sold.map((id, i) => (i % 2 === 0 ? expire(s, id) : completeAndCommit(s, id))),
      ...adjustments.map((delta) => http(t.api.baseUrl, 'POST', `${INVENTORY}/adjust`, { key: s.ws.secretKey, body: { variantId: s.variant.id, warehouseId: s.main.id, delta: Math.abs(delta), reason: 'manual_adjust' } })),
    ]);
    const after = await expectLogMatchesRow(t.ctx.sequelize, s.variant.id, s.main.id);
    expect(after.reserved).toBe(0);
  });
});

describe('release and commit', () => {
  it('commits at completion as the `stock` step: reserved − q, available stays reduced, exactly once', async () => {
    const s = await shop();
    const session = await created(buyNow(s, { quantity: 3 }));
    expect(await completeAndCommit(s, session.id)).toBe('applied');
    expect(await balanceOf(s, s.variant.id, s.main.id)).toEqual({ available: 7, reserved: 0 });
    expect((await movementsOf(s.ws.accountId)).at(-1)).toEqual({
      kind: 'commit',
      variantId: s.variant.id,
      warehouseId: s.main.id,
      delta: 0,
      reservedDelta: -3,
      reference: session.id,
      ...workflowActor(session.id),
    });
    const count = (await movementsOf(s.ws.accountId)).length;
    expect(await fulfillment().runStep(s.tenant, session.id, FULFILLMENT_STEPS.stock)).toBe('already_applied');
    // A completed session is not expired, so nothing goes back either.
    expect(await expire(s, session.id)).toBe('completed');
    expect(await movementsOf(s.ws.accountId)).toHaveLength(count);
    expect(await reservationsOf(s.ws.accountId)).toEqual([{ reference: session.id, variantId: s.variant.id, warehouseId: s.main.id, quantity: 3, status: 'committed' }]);
    await expectLogMatchesRow(t.ctx.sequelize, s.variant.id, s.main.id);
  });

  it('plans the `stock` step after the discount and before the deliveries, only for a session with variant lines', () => {
    const line = (lineKey: string, variantId: string | null) => ({ lineKey, productId: 'prod_x', variantId, name: 'Mug', quantity: 1, unitAmount: 100, amount: 100 });
    expect(planCheckoutFulfillment({ discountId: 'disc_x', referralCode: null, lineItems: [line('1', null), line('2', 'var_x')] })).toEqual([
      'discount',
      'stock',
      'delivery:1',
      'delivery:2',
      'balance',
      'event:checkout.completed',
      'email:receipt',
      'fulfilled',
    ]);
    expect(planCheckoutFulfillment({ discountId: null, referralCode: null, lineItems: [line('1', null)] })).not.toContain('stock');
  });

  it('releases at expiry only: a paid session awaiting confirmation keeps its hold past the deadline', async () => {
    const s = await shop();
    const session = await created(buyNow(s, { quantity: 2 }));
    const paid = await http(t.api.baseUrl, 'POST', `${CHECKOUT_SESSIONS}/${session.id}/pay`, { body: { paymentMethod: 'va' } });
    expect(paid.status).toBe(200);
    expect(await expire(s, session.id)).toBe('pending_review');
    expect(await balanceOf(s, s.variant.id, s.main.id)).toEqual({ available: 8, reserved: 2 });
    expect((await reservationsOf(s.ws.accountId))[0]!.status).toBe('held');
  });

  it('settles holds made while the module was on after it is switched off, and after the warehouse is archived', async () => {
    const s = await shop();
    await adjustStock(t.api.baseUrl, s.ws.secretKey, { variantId: s.variant.id, warehouseId: s.spare.id, delta: 5, reason: 'initial_stock' });
    const expiring = await created(buyNow(s, { quantity: 10 }));
    const completing = await created(buyNow(s, { quantity: 4 }));
    expect((await reservationsOf(s.ws.accountId)).find((r) => r.reference === completing.id)!.warehouseId).toBe(s.spare.id);
    expect((await http(t.api.baseUrl, 'DELETE', `${INVENTORY}/warehouses/${s.spare.id}`, { key: s.ws.secretKey })).status).toBe(200);
    await switchFulfillment(t.api.baseUrl, s.ws.secretKey, false);

    expect(await expire(s, expiring.id)).toBe('expired');
    expect(await completeAndCommit(s, completing.id)).toBe('applied');
    const balances = async (warehouseId: string) => {
      const [row] = await t.ctx.sequelize.query<{ available: string; reserved: string }>('SELECT available, reserved FROM stock_levels WHERE variant_id = :v AND warehouse_id = :w', {
        type: QueryTypes.SELECT,
        replacements: { v: s.variant.id, w: warehouseId },
      });
      return { available: Number(row!.available), reserved: Number(row!.reserved) };
    };
    expect(await balances(s.main.id)).toEqual({ available: 10, reserved: 0 });
    expect(await balances(s.spare.id)).toEqual({ available: 1, reserved: 0 });
    expect((await reservationsOf(s.ws.accountId)).map((r) => [r.reference, r.status]).sort()).toEqual(
      [
        [expiring.id, 'released'],
        [completing.id, 'committed'],
      ].sort(),
    );
  });
});

describe('reserveForLines (for checkouts that are not sessions, e.g. manual orders)', () => {
  it('sums a variant’s lines into one hold, reserves nothing for lines without a variant, and settles once under its reference', async () => {
    const s = await shop();
    const reference = `ord_${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
    const owner = { reference, actor: { type: 'api_key' as const, id: 'key_manual' } };
    const lines = [
      { lineKey: '1', variantId: s.variant.id, quantity: 2 },
      { lineKey: '2', variantId: null, quantity: 9 },
      { lineKey: '3', variantId: s.variant.id, quantity: 3 },
    ];
    const reserved = await t.ctx.sequelize.transaction((tx) => reserveForLines(tx, s.tenant, lines, owner));
    expect(reserved).toEqual([{ variantId: s.variant.id, warehouseId: s.main.id, quantity: 5 }]);
    expect(await balanceOf(s, s.variant.id, s.main.id)).toEqual({ available: 5, reserved: 5 });

    const short = await t.ctx.sequelize
      .transaction((tx) => reserveForLines(tx, s.tenant, [{ lineKey: '1', variantId: s.variant.id, quantity: 6 }], { ...owner, reference: `${reference}2` }))
      .catch((err: unknown) => err);
    expect(short).toBeInstanceOf(AppError);
    expect((short as AppError).code).toBe('INSUFFICIENT_STOCK');

    expect(await t.ctx.sequelize.transaction((tx) => releaseReservations(tx, s.tenant, owner))).toEqual(reserved);
    // Settled: a second release or a commit moves nothing.
    expect(await t.ctx.sequelize.transaction((tx) => releaseReservations(tx, s.tenant, owner))).toEqual([]);
    expect(await t.ctx.sequelize.transaction((tx) => commitReservations(tx, s.tenant, owner))).toEqual([]);
    expect(await balanceOf(s, s.variant.id, s.main.id)).toEqual({ available: 10, reserved: 0 });
    expect((await movementsOf(s.ws.accountId)).filter((m) => m.reference === reference).map((m) => [m.kind, m.actorType, m.actorId])).toEqual([
      ['reserve', 'api_key', 'key_manual'],
      ['release', 'api_key', 'key_manual'],
    ]);
  });
});
