import { DiscountCode } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { percentOf } from '../../domain/discounts/amount';
import { quoteDiscount, type CheckoutCartItem as CartItem } from '../../domain/pricing/cart';
import { http, useTestApi, type HttpResult } from '../helpers/context';
import { createDiscountCode, createProduct, discountSnapshot } from '../helpers/discounts';
import { expectError } from '../helpers/expect';
import { AppError } from '../../lib/errors';

const t = useTestApi();

const VALIDATE = '/api/v1/storefront/public/validate-discount';
type Quote = Record<string, unknown> & { valid: boolean; reason?: string; discountAmount?: number };

interface Shop {
  slug: string;
  accountId: string;
  liveKey: string;
  tenant: Tenant;
  /** IDR 100,000, tags Sale and book. */
  book: string;
  /** IDR 50,000, tag gift. */
  mug: string;
  /** IDR 999, no tags. */
  pin: string;
  /** USD 12. */
  shirt: string;
}

async function shop(): Promise<Shop> {
  const ws = await t.ctx.createWorkspace();
  const key = ws.liveSecretKey;
  return {
    slug: ws.slug!,
    accountId: ws.accountId,
    liveKey: key,
    tenant: { accountId: ws.accountId, environment: 'live' },
    book: await createProduct(t.api.baseUrl, key, { price: 100_000, tags: ['Sale', 'book'] }),
    mug: await createProduct(t.api.baseUrl, key, { price: 50_000, tags: ['gift'] }),
    pin: await createProduct(t.api.baseUrl, key, { price: 999 }),
    shirt: await createProduct(t.api.baseUrl, key, { price: 12, currency: 'USD' }),
  };
}

function quote(s: Shop, code: string, items: CartItem[], extra: Record<string, unknown> = {}): Promise<HttpResult<{ data: Quote; error: unknown }>> {
  return http<{ data: Quote; error: unknown }>(t.api.baseUrl, 'POST', VALIDATE, { body: { code, merchantSlug: s.slug, items, ...extra } });
}

async function expectQuote(s: Shop, code: string, items: CartItem[], expected: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const res = await quote(s, code, items, extra);
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject(expected);
  return res.body.data;
}

const past = '2020-01-01T00:00:00Z';
const future = '2099-01-01T00:00:00Z';

describe('POST /v1/storefront/public/validate-discount: amounts', () => {
  let s: Shop;
  beforeAll(async () => {
    s = await shop();
  });
  const code = (body: Record<string, unknown>) => createDiscountCode(t.api.baseUrl, s.liveKey, body);

  it('answers a valid quote with the documented fields, looking the code up case-insensitively', async () => {
    const created = await code({ code: 'Save10', type: 'percent', value: 10 });
    const data = await expectQuote(s, 'sAVE10', [{ productId: s.book, quantity: 1 }, { productId: s.mug, quantity: 2 }], {});
    expect(data).toEqual({
      valid: true,
      discountId: created.id,
      code: 'Save10',
      type: 'percent',
      value: 10,
      currency: 'IDR',
      subtotalAmount: 200_000,
      discountAmount: 20_000,
      appliesToShipping: false,
    });
  });

  it('percent: rounds a fraction of the smallest unit up (in the buyer’s favour)', async () => {
    await code({ code: 'TENPIN', type: 'percent', value: 10 });
    // 10% of 999 = 99.9 → 100; of 2 × 999 = 199.8 → 200.
    await expectQuote(s, 'TENPIN', [{ productId: s.pin, quantity: 1 }], { discountAmount: 100 });
    await expectQuote(s, 'TENPIN', [{ productId: s.pin, quantity: 2 }], { discountAmount: 200 });
    expect(percentOf(1, 1)).toBe(1);
    expect(percentOf(Number.MAX_SAFE_INTEGER, 100)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('percent: takes only the eligible lines for scope products and tags (tags match case-insensitively); 100% is the eligible subtotal', async () => {
    await code({ code: 'BOOKS', type: 'percent', value: 10, scope: 'products', productIds: [s.book] });
    await code({ code: 'SALE', type: 'percent', value: 25, scope: 'tags', tagFilter: ['sale', 'other'] });
    await code({ code: 'FREEBOOK', type: 'percent', value: 100, scope: 'products', productIds: [s.book] });
    const cart = [{ productId: s.book, quantity: 1 }, { productId: s.mug, quantity: 2 }];
    await expectQuote(s, 'BOOKS', cart, { valid: true, discountAmount: 10_000, subtotalAmount: 200_000 });
    await expectQuote(s, 'SALE', cart, { valid: true, discountAmount: 25_000 });
    await expectQuote(s, 'FREEBOOK', cart, { valid: true, discountAmount: 100_000 });
  });

  it('fixed: the value in the smallest unit, never more than the eligible subtotal', async () => {
    await code({ code: 'FLAT30K', type: 'fixed', value: 30_000 });
    await code({ code: 'FLAT500K', type: 'fixed', value: 500_000 });
    await code({ code: 'BOOK150K', type: 'fixed', value: 150_000, scope: 'products', productIds: [s.book] });
    const cart = [{ productId: s.book, quantity: 1 }, { productId: s.mug, quantity: 2 }];
    await expectQuote(s, 'FLAT30K', cart, { discountAmount: 30_000, appliesToShipping: false });
    await expectQuote(s, 'FLAT500K', cart, { discountAmount: 200_000 });
    await expectQuote(s, 'BOOK150K', cart, { discountAmount: 100_000 });
  });

  it('USD: catalogue prices in dollars become cents before the minimum and the fixed value apply', async () => {
    await code({ code: 'USD5', type: 'fixed', value: 500, currency: 'USD', minPurchaseAmount: 2_400 });
    await code({ code: 'USDMIN', type: 'fixed', value: 500, currency: 'USD', minPurchaseAmount: 2_401 });
    await expectQuote(s, 'USD5', [{ productId: s.shirt, quantity: 2 }], { valid: true, currency: 'USD', subtotalAmount: 2_400, discountAmount: 500 });
    await expectQuote(s, 'USDMIN', [{ productId: s.shirt, quantity: 2 }], { valid: false, reason: 'MIN_PURCHASE_NOT_MET' });
  });

  it('shipping types discount shipping only: 0 without a shipping amount; with one, percent rounded up and fixed capped', async () => {
    await code({ code: 'SHIPHALF', type: 'shipping_percent', value: 50 });
    await code({ code: 'SHIP20K', type: 'shipping_fixed', value: 20_000 });
    const cart = [{ productId: s.book, quantity: 1 }];
    await expectQuote(s, 'SHIPHALF', cart, { valid: true, appliesToShipping: true, discountAmount: 0 });
    await expectQuote(s, 'SHIP20K', cart, { valid: true, appliesToShipping: true, discountAmount: 0 });
    const withShipping = (c: string, shippingAmount: number) => quoteDiscount(t.ctx.sequelize, s.tenant, { code: c, items: cart, shippingAmount });
    expect(await withShipping('SHIPHALF', 15_001)).toMatchObject({ valid: true, discountAmount: 7_501 });
    expect(await withShipping('SHIP20K', 15_000)).toMatchObject({ valid: true, discountAmount: 15_000 });
    expect(await withShipping('SHIP20K', 30_000)).toMatchObject({ valid: true, discountAmount: 20_000 });
  });

  it('uses the catalogue subtotal, not a subtotalAmount the client sends', async () => {
    await code({ code: 'MIN150K', type: 'fixed', value: 1_000, minPurchaseAmount: 150_000 });
    const cart = [{ productId: s.book, quantity: 1 }, { productId: s.mug, quantity: 2 }];
    await expectQuote(s, 'MIN150K', cart, { valid: true, subtotalAmount: 200_000 }, { subtotalAmount: 1 });
    await expectQuote(s, 'MIN150K', [{ productId: s.mug, quantity: 1 }], { valid: false, reason: 'MIN_PURCHASE_NOT_MET' }, { subtotalAmount: 10_000_000 });
  });
});

describe('POST /v1/storefront/public/validate-discount: reasons', () => {
  let s: Shop;
  beforeAll(async () => {
    s = await shop();
  });
  const cart = () => [{ productId: s.book, quantity: 1 }];

  it.each<[string, Record<string, unknown>, string]>([
    ['an inactive code', { active: false }, 'INACTIVE'],
    ['a code before startsAt', { startsAt: future }, 'NOT_YET_VALID'],
    ['a code at or after expiresAt', { expiresAt: past }, 'EXPIRED'],
    ['a code in another currency', { currency: 'USD' }, 'CURRENCY_MISMATCH'],
    ['a cart under minPurchaseAmount', { minPurchaseAmount: 100_001 }, 'MIN_PURCHASE_NOT_MET'],
    ['scope products without a listed product in the cart', { scope: 'products', productIds: ['MUG'] }, 'SCOPE_MISMATCH'],
    ['scope tags without a matching tag in the cart', { scope: 'tags', tagFilter: ['gift'] }, 'SCOPE_MISMATCH'],
  ])('refuses %s with 200, valid false and the reason, writing nothing', async (_name, body, reason) => {
    const created = await createDiscountCode(t.api.baseUrl, s.liveKey, { ...body, ...(body.productIds ? { productIds: [s.mug] } : {}) });
    const before = await discountSnapshot(s.accountId);
    const res = await quote(s, created.code.toLowerCase(), cart());
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ valid: false, code: created.code, reason });
    expect(res.body.error).toBeNull();
    expect(await discountSnapshot(s.accountId)).toEqual(before);
  });

  it('refuses an unknown code with CODE_NOT_FOUND, echoing the code sent', async () => {
    const res = await quote(s, 'NOPE', cart());
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ valid: false, code: 'NOPE', reason: 'CODE_NOT_FOUND' });
  });

  it('refuses a code whose total uses are spent with MAX_USES_REACHED', async () => {
    const created = await createDiscountCode(t.api.baseUrl, s.liveKey, { maxUsesTotal: 2 });
    await DiscountCode.update({ usesTotal: 2 }, { where: { id: created.id } });
    await expectQuote(s, created.code, cart(), { valid: false, reason: 'MAX_USES_REACHED' });
    await DiscountCode.update({ usesTotal: 1 }, { where: { id: created.id } });
    await expectQuote(s, created.code, cart(), { valid: true });
  });

  it('answers the earlier check when a code fails two (table-driven, in the documented order)', async () => {
    const spent = { maxUsesTotal: 1 };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ active: false, expiresAt: past }, 'INACTIVE'],
      [{ active: false, startsAt: future, ...spent }, 'INACTIVE'],
      [{ startsAt: future, ...spent }, 'NOT_YET_VALID'],
      [{ expiresAt: past, ...spent }, 'EXPIRED'],
      [{ ...spent, maxUsesPerCustomer: 1 }, 'MAX_USES_REACHED'],
      [{ maxUsesPerCustomer: 1, currency: 'USD' }, 'CUSTOMER_LIMIT_REACHED'],
      [{ maxUsesPerCustomer: 1, minPurchaseAmount: 10_000_000 }, 'CUSTOMER_LIMIT_REACHED'],
      [{ currency: 'USD', minPurchaseAmount: 10_000_000 }, 'CURRENCY_MISMATCH'],
      [{ minPurchaseAmount: 10_000_000, scope: 'tags', tagFilter: ['nothing'] }, 'MIN_PURCHASE_NOT_MET'],
    ];
    for (const [body, reason] of cases) {
      const created = await createDiscountCode(t.api.baseUrl, s.liveKey, body);
      // Spend the code, and give the buyer one earlier use, through the ledger the checkout writes.
      await DiscountCode.update({ usesTotal: 1 }, { where: { id: created.id } });
      await t.ctx.sequelize.query(
        `INSERT INTO discount_redemptions (id, account_id, environment, discount_id, reference, customer_email, amount)
         VALUES ('dred_' || md5(random()::text), :accountId, 'live', :id, 'cs_earlier', 'buyer@example.com', 1)`,
        { replacements: { accountId: s.accountId, id: created.id } },
      );
      const result = await quoteDiscount(t.ctx.sequelize, s.tenant, { code: created.code, items: cart(), customerEmail: 'Buyer@Example.com' });
      expect({ body, reason: result.valid ? 'valid' : result.reason }).toEqual({ body, reason });
    }
  });
});

describe('POST /v1/storefront/public/validate-discount: requests', () => {
  let s: Shop;
  beforeAll(async () => {
    s = await shop();
    await createDiscountCode(t.api.baseUrl, s.liveKey, { code: 'ANY' });
  });

  it('refuses a cart line the buyer cannot buy with 400 naming it: unknown, unpublished, archived, test-environment product, an unknown variant', async () => {
    const unpublished = await createProduct(t.api.baseUrl, s.liveKey, { published: false });
    const archived = await createProduct(t.api.baseUrl, s.liveKey);
    await http(t.api.baseUrl, 'DELETE', `/api/v1/storefront/products/${archived}`, { key: s.liveKey });
    const ws = await t.ctx.createWorkspace();
    const foreign = await createProduct(t.api.baseUrl, ws.liveSecretKey);
    for (const productId of ['prod_unknown', unpublished, archived, foreign]) {
      const res = await quote(s, 'ANY', [{ productId: s.book, quantity: 1 }, { productId, quantity: 1 }]);
      expectError(res as HttpResult, 400, 'VALIDATION_ERROR');
      expect((res.body.error as { details: Array<{ field: string }> }).details.map((d) => d.field)).toEqual(['items.1.productId']);
    }
    const variant = await quote(s, 'ANY', [{ productId: s.book, variantId: 'var_x', quantity: 1 }]);
    expectError(variant as HttpResult, 400, 'VALIDATION_ERROR');
    const mixed = await quote(s, 'ANY', [{ productId: s.book, quantity: 1 }, { productId: s.shirt, quantity: 1 }]);
    expectError(mixed as HttpResult, 400, 'VALIDATION_ERROR');
  });

  it.each<[string, Record<string, unknown>]>([
    ['no items', { items: [] }],
    ['a zero quantity', { items: [{ productId: 'prod_x', quantity: 0 }] }],
    ['an unknown item field', { items: [{ productId: 'prod_x', quantity: 1, price: 1 }] }],
    ['an unknown field', { customerEmail: 'a@example.com' }],
    ['no code', { code: undefined }],
    ['a negative subtotalAmount', { subtotalAmount: -1 }],
  ])('refuses %s with 400 VALIDATION_ERROR', async (_name, change) => {
    const res = await http(t.api.baseUrl, 'POST', VALIDATE, {
      body: { code: 'ANY', merchantSlug: s.slug, items: [{ productId: s.book, quantity: 1 }], ...change },
    });
    expectError(res, 400, 'VALIDATION_ERROR');
  });

  it('answers 404 RESOURCE_NOT_FOUND for an unknown merchant slug', async () => {
    const res = await http(t.api.baseUrl, 'POST', VALIDATE, { body: { code: 'ANY', merchantSlug: 'no-such-merchant-x', items: [{ productId: s.book, quantity: 1 }] } });
    expectError(res, 404, 'RESOURCE_NOT_FOUND');
  });

  it('is the domain’s one function: a cart error is an AppError there too', async () => {
    await expect(quoteDiscount(t.ctx.sequelize, s.tenant, { code: 'ANY', items: [{ productId: 'prod_x', quantity: 1 }] })).rejects.toBeInstanceOf(AppError);
  });
});
