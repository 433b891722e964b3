import { request } from 'node:http';
import { QueryTypes } from 'sequelize';
import { CheckoutSession, DiscountRedemption } from '../../db/models';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { newId } from '../../lib/ids';
import { insertCartProduct, insertCoupon, type CartProductOverrides } from '../fixtures/cart';
import { http, useTestApi, type HttpResult } from '../helpers/context';
import { expectError } from '../helpers/expect';

const PUBLIC_BASE_URL = 'https://shop.example.test';
const t = useTestApi({ PUBLIC_BASE_URL });

const BASE = '/api/v1/storefront/public';
type Json = Record<string, unknown>;
type Created = { data: { checkoutSessionId: string; hostedUrl: string } };

// Checkout creates are limited to 10 per minute per IP and merchant: each test speaks from its own loopback
// address (Linux answers all of 127.0.0.0/8), so tests do not spend each other's budget.
let sourceCounter = 0;
function nextSource(): string {
  sourceCounter += 1;
  return `127.${(process.pid % 200) + 20}.${Math.floor(sourceCounter / 250)}.${(sourceCounter % 250) + 2}`;
}

function post<T = Json>(path: string, body: unknown, { key, from = nextSource(), host }: { key?: string; from?: string; host?: string } = {}): Promise<HttpResult<T>> {
  const url = new URL(t.api.baseUrl);
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
  if (host) headers.host = host;
  if (key) headers.authorization = `Bearer ${key}`;
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: 'POST', path, localAddress: from, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
        resolve({ status: res.statusCode!, headers: responseHeaders, body: JSON.parse(text) as T, text });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const buyNowPath = (merchant: string, product: string) => `${BASE}/${merchant}/${product}/checkout`;
const cartPath = (merchant: string) => `${BASE}/${merchant}/cart-checkout`;

/** A merchant with a slug; rows are written to its live environment (what a keyless buyer reads) unless said otherwise. */
async function merchant(): Promise<CreatedWorkspace & { slug: string; live: { accountId: string; environment: 'live' } }> {
  const ws = await t.ctx.createWorkspace();
  return { ...ws, slug: ws.slug!, live: { accountId: ws.accountId, environment: 'live' } };
}

const liveProduct = (ws: { accountId: string }, overrides: CartProductOverrides = {}) => insertCartProduct({ accountId: ws.accountId, environment: 'live' }, overrides);

function sessionsOf(accountId: string): Promise<CheckoutSession[]> {
  return CheckoutSession.findAll({ where: { accountId }, order: [['id', 'ASC']] });
}

function startsOf(accountId: string) {
  return t.ctx.sequelize.query<{ workflow_type: string; workflow_id: string; args: Json; started_at: Date | null }>(
    'SELECT workflow_type, workflow_id, args, started_at FROM workflow_starts WHERE account_id = :accountId ORDER BY id',
    { type: QueryTypes.SELECT, replacements: { accountId } },
  );
}

/** A refusal: status and code, and no session nor workflow start of the merchant written. */
async function expectRefused(res: HttpResult, status: number, code: string, accountId: string, detail?: Json): Promise<void> {
  expectError(res, status, code);
  if (detail) expect((res.body.error as { details?: unknown }).details).toEqual(expect.arrayContaining([expect.objectContaining(detail)]));
  expect(await sessionsOf(accountId)).toEqual([]);
  expect(await startsOf(accountId)).toEqual([]);
}

const address = { name: '  Budi Santoso ', line1: 'Jl. Sudirman 1', line2: '', city: 'Jakarta', region: 'DKI Jakarta', postalCode: '10210', country: 'id', phone: '+62 812-3456-7890' };

describe('buy-now checkout', () => {
  it('creates an open session priced from the catalogue, records its workflow start and answers 201 with the hosted URL', async () => {
    const ws = await merchant();
    const product = await liveProduct(ws, { name: 'Ebook', price: 25, currency: 'USD', slug: 'ebook' });
    const coupon = await insertCoupon(ws.live, { type: 'percent', value: 10 });
    const res = await post<Created>(buyNowPath(ws.slug, 'ebook'), {
      email: 'buyer@example.com',
      name: 'Ani',
      phone: '+62 812 0000',
      quantity: 2,
      couponCode: coupon.code.toLowerCase(),
      referralCode: 'FRIEND-1',
      successUrl: 'https://merchant.example/thanks',
      cancelUrl: 'https://merchant.example/cart',
      // Metadata is stored as given; amounts never come from the request.
      metadata: { campaign: 'spring', price: '1', amount: '1', referralCode: 'SPOOFED' },
    });
    expect(res.status).toBe(201);
    const { checkoutSessionId, hostedUrl } = res.body.data;
    expect(checkoutSessionId).toMatch(/^cs_[0-9A-Z]{26}$/);
    expect(hostedUrl).toBe(`${PUBLIC_BASE_URL}/checkout/${checkoutSessionId}`);

    const [session] = await sessionsOf(ws.accountId);
    expect(session!.get({ plain: true })).toMatchObject({
      id: checkoutSessionId,
      environment: 'live',
      status: 'open',
      source: 'buy_now',
      amount: 4_500,
      currency: 'USD',
      subtotal: 5_000,
      description: 'Ebook × 2',
      customerEmail: 'buyer@example.com',
      customerName: 'Ani',
      customerPhone: '+62 812 0000',
      customerId: null,
      paymentMethods: ['qris', 'va', 'card', 'ewallet', 'intl_wallet'],
      paymentMethod: null,
      lineItems: [{ lineKey: '1', productId: product.id, variantId: null, name: 'Ebook', quantity: 2, unitAmount: 2_500, amount: 5_000 }],
      discountId: coupon.id,
      discountCode: coupon.code,
      discountAmount: 500,
      discountApplied: null,
      shippingAddress: null,
      referralCode: 'FRIEND-1',
      successUrl: 'https://merchant.example/thanks',
      cancelUrl: 'https://merchant.example/cart',
    });
    // The buyer's metadata as given, with the referral code beside it (the field wins over a same-named key).
    expect(session!.metadata).toEqual({ campaign: 'spring', price: '1', amount: '1', referralCode: 'FRIEND-1' });
    const lifetime = session!.expiresAt.getTime() - session!.createdAt.getTime();
    expect(Math.abs(lifetime - 24 * 60 * 60 * 1000)).toBeLessThan(5_000);
    // Creation counts nothing: the code's use and the referral's conversion are counted when the session completes.
    expect(await DiscountRedemption.count({ where: { discountId: coupon.id } })).toBe(0);

    const starts = await startsOf(ws.accountId);
    expect(starts).toEqual([
      {
        workflow_type: 'checkoutSession',
        workflow_id: `checkout-session:${checkoutSessionId}`,
        args: { accountId: ws.accountId, environment: 'live', sessionId: checkoutSessionId, expiresAt: session!.expiresAt.toISOString() },
        started_at: expect.any(Date),
      },
    ]);
    const described = await t.ctx.temporal.workflow.getHandle(`checkout-session:${checkoutSessionId}`).describe();
    expect(described.type).toBe('checkoutSession');
  });

  it('defaults the quantity to 1, and requires and stores a shipping address for a physical product', async () => {
    const ws = await merchant();
    const shoe = await liveProduct(ws, { name: 'Shoe', price: 350_000, currency: 'IDR', type: 'physical', slug: 'shoe' });
    await expectRefused(await post(buyNowPath(ws.slug, 'shoe'), { email: 'b@example.com' }), 400, 'VALIDATION_ERROR', ws.accountId, { field: 'shippingAddress' });

    const res = await post<Created>(buyNowPath(ws.slug, 'shoe'), { email: ' b@example.com ', shippingAddress: address });
    expect(res.status).toBe(201);
    const [session] = await sessionsOf(ws.accountId);
    expect(session!.get({ plain: true })).toMatchObject({
      customerEmail: 'b@example.com',
      amount: 350_000,
      currency: 'IDR',
      description: 'Shoe',
      lineItems: [{ lineKey: '1', productId: shoe.id, quantity: 1, unitAmount: 350_000, amount: 350_000 }],
      // Trimmed, the country upper-cased, blank optional lines left out.
      shippingAddress: { name: 'Budi Santoso', line1: 'Jl. Sudirman 1', city: 'Jakarta', region: 'DKI Jakarta', postalCode: '10210', country: 'ID', phone: '+62 812-3456-7890' },
      discountId: null,
      discountAmount: 0,
      referralCode: null,
    });
    expect(session!.metadata).toEqual({});
  });

  it('refuses a slug naming no buyable product (unknown, unpublished, archived, subscription) with 400, and an unknown merchant with 404', async () => {
    const ws = await merchant();
    await liveProduct(ws, { slug: 'draft', published: false });
    await liveProduct(ws, { slug: 'gone', archived: true });
    await liveProduct(ws, { slug: 'monthly', type: 'subscription' });
    for (const slug of ['nope', 'draft', 'gone', 'monthly']) {
      await expectRefused(await post(buyNowPath(ws.slug, slug), { email: 'b@example.com' }), 400, 'VALIDATION_ERROR', ws.accountId, { field: 'productSlug' });
    }
    expectError(await post(buyNowPath('no-such-merchant-zz', 'ebook'), { email: 'b@example.com' }), 404, 'RESOURCE_NOT_FOUND');
  });

  it('refuses bad quantities, an unknown variant, a bad e-mail, unknown fields and prices sent by the buyer, writing nothing', async () => {
    const ws = await merchant();
    await liveProduct(ws, { slug: 'ebook' });
    const cases: [Json, string][] = [
      [{ quantity: 0 }, 'quantity'],
      [{ quantity: -1 }, 'quantity'],
      [{ quantity: 1.5 }, 'quantity'],
      [{ quantity: 10_001 }, 'quantity'],
      [{ variantId: newId('var') }, 'variantId'],
      [{ email: 'not-an-address' }, 'email'],
      [{ email: 'b@example.com\nBcc: all@example.com' }, 'email'],
      [{ email: `${'b'.repeat(310)}@example.com` }, 'email'],
      [{ email: undefined }, 'email'],
      [{ price: 1 }, 'price'],
      [{ amount: 1 }, 'amount'],
      [{ successUrl: 'javascript:alert(1)' }, 'successUrl'],
      [{ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
      [{ shippingAddress: { ...address, country: 'XQ' } }, 'shippingAddress.country'],
      [{ shippingAddress: { ...address, floor: '3' } }, 'shippingAddress.floor'],
    ];
    for (const [change, field] of cases) {
      const res = await post(buyNowPath(ws.slug, 'ebook'), { email: 'b@example.com', ...change });
      await expectRefused(res, 400, 'VALIDATION_ERROR', ws.accountId, { field });
    }
  });
});

describe('cart checkout', () => {
  it('prices every line from the catalogue in request order, applies a fixed code and stores the buyer’s fields', async () => {
    const ws = await merchant();
    const a = await liveProduct(ws, { name: 'Kaos', price: 120_000, currency: 'IDR', type: 'physical' });
    const b = await liveProduct(ws, { name: 'Ebook', price: 50_000, currency: 'IDR' });
    const c = await liveProduct(ws, { name: 'Plugin', price: 75_000, currency: 'IDR', licenseEnabled: true });
    const coupon = await insertCoupon(ws.live, { type: 'fixed', value: 20_000, currency: 'IDR' });
    const res = await post<Created>(cartPath(ws.slug), {
      email: 'buyer@example.com',
      items: [
        { productId: b.id, quantity: 1 },
        { productId: a.id, quantity: 2 },
        { productId: c.id, quantity: 1, variantId: null },
      ],
      couponCode: coupon.code,
      shippingAddress: address,
      referralCode: 'ref_42',
      metadata: { courierCode: 'jne', courierService: 'REG' },
    });
    expect(res.status).toBe(201);
    const [session] = await sessionsOf(ws.accountId);
    expect(session!.get({ plain: true })).toMatchObject({
      id: res.body.data.checkoutSessionId,
      source: 'cart',
      currency: 'IDR',
      subtotal: 365_000,
      discountAmount: 20_000,
      discountId: coupon.id,
      amount: 345_000,
      description: 'Ebook, Kaos × 2, Plugin',
      lineItems: [
        { lineKey: '1', productId: b.id, variantId: null, name: 'Ebook', variantName: null, quantity: 1, unitAmount: 50_000, amount: 50_000 },
        { lineKey: '2', productId: a.id, variantId: null, name: 'Kaos', variantName: null, quantity: 2, unitAmount: 120_000, amount: 240_000 },
        { lineKey: '3', productId: c.id, variantId: null, name: 'Plugin', variantName: null, quantity: 1, unitAmount: 75_000, amount: 75_000 },
      ],
      shippingAddress: expect.objectContaining({ country: 'ID' }),
      referralCode: 'ref_42',
    });
    expect(session!.metadata).toEqual({ courierCode: 'jne', courierService: 'REG', referralCode: 'ref_42' });
    expect(await startsOf(ws.accountId)).toEqual([expect.objectContaining({ workflow_id: `checkout-session:${session!.id}`, started_at: expect.any(Date) })]);
  });

  it('describes a long cart by its first three products and a count', async () => {
    const ws = await merchant();
    const products = await Promise.all(['A', 'B', 'C', 'D', 'E'].map((name) => liveProduct(ws, { name })));
    const res = await post<Created>(cartPath(ws.slug), { email: 'b@example.com', items: products.map((p) => ({ productId: p.id, quantity: 1 })) });
    expect(res.status).toBe(201);
    expect((await sessionsOf(ws.accountId))[0]!.description).toBe('A, B, C and 2 more');
  });

  it('reads the environment of the merchant’s own key: its test catalogue with pk_test, never the other one', async () => {
    const ws = await merchant();
    const testProduct = await insertCartProduct({ accountId: ws.accountId, environment: 'test' });
    const live = await liveProduct(ws);
    const cart = (productId: string) => ({ email: 'b@example.com', items: [{ productId, quantity: 1 }] });
    // A keyless buyer reads live: the test product does not exist there, and the reverse.
    await expectRefused(await post(cartPath(ws.slug), cart(testProduct.id)), 400, 'VALIDATION_ERROR', ws.accountId, { field: 'items.0.productId' });
    await expectRefused(await post(cartPath(ws.slug), cart(live.id), { key: ws.publishableKey }), 400, 'VALIDATION_ERROR', ws.accountId, { field: 'items.0.productId' });
    const other = await merchant();
    expectError(await post(cartPath(ws.slug), cart(live.id), { key: other.publishableKey }), 403, 'FORBIDDEN');

    const res = await post<Created>(cartPath(ws.slug), cart(testProduct.id), { key: ws.publishableKey });
    expect(res.status).toBe(201);
    expect((await sessionsOf(ws.accountId))[0]!.environment).toBe('test');
  });

  it('refuses every bad cart with 400 VALIDATION_ERROR naming the item, writing nothing', async () => {
    const ws = await merchant();
    const other = await merchant();
    const good = await liveProduct(ws, { price: 10, currency: 'USD' });
    const rupiah = await liveProduct(ws, { price: 10_000, currency: 'IDR' });
    const physical = await liveProduct(ws, { type: 'physical' });
    const unpublished = await liveProduct(ws, { published: false });
    const archived = await liveProduct(ws, { archived: true });
    const subscription = await liveProduct(ws, { type: 'subscription' });
    const foreign = await liveProduct(other);
    const line = (productId: string, extra: Json = {}) => ({ productId, quantity: 1, ...extra });
    const cases: [unknown[], string][] = [
      [[], 'items'],
      [[line(good.id), line(unpublished.id)], 'items.1.productId'],
      [[line(archived.id)], 'items.0.productId'],
      [[line(foreign.id)], 'items.0.productId'],
      [[line(subscription.id)], 'items.0.productId'],
      [[line(newId('prod'))], 'items.0.productId'],
      [[line(good.id, { quantity: 0 })], 'items.0.quantity'],
      [[line(good.id, { quantity: -1 })], 'items.0.quantity'],
      [[line(good.id, { quantity: 1.5 })], 'items.0.quantity'],
      [[line(good.id, { variantId: newId('var') })], 'items.0.variantId'],
      [[line(good.id), line(good.id, { quantity: 2 })], 'items.1.productId'],
      [[line(good.id), line(rupiah.id)], 'items'],
      [[line(good.id, { price: 1 })], 'items.0.price'],
      [[line(physical.id)], 'shippingAddress'],
      [Array.from({ length: 101 }, () => line(good.id)), 'items'],
    ];
    for (const [items, field] of cases) {
      await expectRefused(await post(cartPath(ws.slug), { email: 'b@example.com', items }), 400, 'VALIDATION_ERROR', ws.accountId, { field });
    }
    await expectRefused(await post(cartPath(ws.slug), { email: 'b@example', items: [line(good.id)] }), 400, 'VALIDATION_ERROR', ws.accountId, { field: 'email' });
    await expectRefused(await post(cartPath(ws.slug), { email: 'b@example.com', items: [line(good.id)], total: 1 }), 400, 'VALIDATION_ERROR', ws.accountId, { field: 'total' });
  });
});

describe('coupons at checkout', () => {
  const day = 24 * 60 * 60 * 1000;
  type Live = { accountId: string; environment: 'live' };
  const refusals: [string, (owner: Live) => Promise<{ code: string }>][] = [
    ['CODE_NOT_FOUND', async () => ({ code: 'NO-SUCH-CODE' })],
    ['INACTIVE', (owner) => insertCoupon(owner, { active: false })],
    ['NOT_YET_VALID', (owner) => insertCoupon(owner, { startsAt: new Date(Date.now() + day) })],
    ['EXPIRED', (owner) => insertCoupon(owner, { expiresAt: new Date(Date.now() - day) })],
    ['MAX_USES_REACHED', (owner) => insertCoupon(owner, { maxUsesTotal: 1, usesTotal: 1 })],
    [
      'CUSTOMER_LIMIT_REACHED',
      async (owner) => {
        const coupon = await insertCoupon(owner, { maxUsesPerCustomer: 1 });
        await DiscountRedemption.create({ id: newId('dred'), ...owner, discountId: coupon.id, reference: 'earlier-order', customerEmail: 'buyer@example.com', customerId: null, amount: 100 });
        return coupon;
      },
    ],
    ['CURRENCY_MISMATCH', (owner) => insertCoupon(owner, { currency: 'IDR' })],
    ['MIN_PURCHASE_NOT_MET', (owner) => insertCoupon(owner, { minPurchaseAmount: 1_000_000 })],
    ['SCOPE_MISMATCH', (owner) => insertCoupon(owner, { scope: 'products', productIds: [newId('prod')] })],
    ['SHIPPING_NOT_CHARGED', (owner) => insertCoupon(owner, { type: 'shipping_percent', value: 100 })],
    ['SHIPPING_NOT_CHARGED', (owner) => insertCoupon(owner, { type: 'shipping_fixed', value: 1_000 })],
    ['NOTHING_TO_PAY', (owner) => insertCoupon(owner, { type: 'percent', value: 100 })],
    ['NOTHING_TO_PAY', (owner) => insertCoupon(owner, { type: 'fixed', value: 2_500 })],
  ];

  it.each(refusals)('refuses a code that does not apply with 400 and its reason: %s', async (reason, make) => {
    const ws = await merchant();
    await liveProduct(ws, { slug: 'ebook', price: 25, currency: 'USD' });
    const { code } = await make(ws.live);
    const res = await post(buyNowPath(ws.slug, 'ebook'), { email: 'Buyer@Example.com', couponCode: code });
    await expectRefused(res, 400, 'VALIDATION_ERROR', ws.accountId, { field: 'couponCode', reason });
  });

  it('takes a product-scoped percent code off its products only, and treats a blank code as none', async () => {
    const ws = await merchant();
    const a = await liveProduct(ws, { price: 40 });
    const b = await liveProduct(ws, { price: 60 });
    const coupon = await insertCoupon(ws.live, { type: 'percent', value: 25, scope: 'products', productIds: [b.id] });
    const items = [{ productId: a.id, quantity: 1 }, { productId: b.id, quantity: 1 }];
    expect((await post(cartPath(ws.slug), { email: 'b@example.com', items, couponCode: coupon.code })).status).toBe(201);
    expect((await post(cartPath(ws.slug), { email: 'b@example.com', items, couponCode: '' })).status).toBe(201);
    const [scoped, plain] = await sessionsOf(ws.accountId);
    expect(scoped!.get({ plain: true })).toMatchObject({ subtotal: 10_000, discountAmount: 1_500, amount: 8_500, discountCode: coupon.code });
    expect(plain!.get({ plain: true })).toMatchObject({ subtotal: 10_000, discountAmount: 0, amount: 10_000, discountId: null });
  });
});

describe('checkout create rate limit', () => {
  it('allows 10 per minute per IP and merchant (invalid bodies count); the 11th is 429 with Retry-After; another merchant is unaffected', async () => {
    const a = await merchant();
    const b = await merchant();
    await liveProduct(a, { slug: 'ebook' });
    await liveProduct(b, { slug: 'ebook' });
    const from = nextSource();
    for (let i = 0; i < 9; i += 1) {
      const res = await post(buyNowPath(a.slug, 'ebook'), { email: 'b@example.com' }, { from });
      expect(res.status).toBe(201);
      expect(res.headers.get('x-ratelimit-limit')).toBe('10');
    }
    expectError(await post(cartPath(a.slug.toUpperCase()), { email: 'b@example.com', items: [] }, { from }), 400, 'VALIDATION_ERROR');
    const limited = await post(buyNowPath(a.slug, 'ebook'), { email: 'b@example.com' }, { from });
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await sessionsOf(a.accountId)).toHaveLength(9);

    expect((await post(buyNowPath(b.slug, 'ebook'), { email: 'b@example.com' }, { from })).status).toBe(201);
    expect((await post(buyNowPath(a.slug, 'ebook'), { email: 'b@example.com' })).status).toBe(201);
  });
});

describe('routes beside the storefront reads', () => {
  it('serves both creates on a custom domain, whose paths leave the merchant slug out', async () => {
    const ws = await merchant();
    const product = await liveProduct(ws, { slug: 'ebook' });
    const host = `${ws.slug}.shop.example.com`;
    const patched = await http(t.api.baseUrl, 'PATCH', '/api/v1/account/storefront', { key: ws.secretKey, body: { customDomains: [host] } });
    expect(patched.status).toBe(200);
    expect((await post(`${BASE}/ebook/checkout`, { email: 'b@example.com' }, { host })).status).toBe(201);
    expect((await post(`${BASE}/cart-checkout`, { email: 'b@example.com', items: [{ productId: product.id, quantity: 1 }] }, { host })).status).toBe(201);
    expect((await sessionsOf(ws.accountId)).map((s) => s.source)).toEqual(['buy_now', 'cart']);
  });

  it('leaves the GET routes of the same shape alone: a product slugged cart-checkout is still readable, GET …/checkout is 405', async () => {
    const ws = await merchant();
    await liveProduct(ws, { slug: 'cart-checkout' });
    expect((await http(t.api.baseUrl, 'GET', `${BASE}/${ws.slug}/cart-checkout`)).status).toBe(200);
    const res = await http(t.api.baseUrl, 'GET', buyNowPath(ws.slug, 'cart-checkout'));
    expectError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('POST');
  });
});
