import { DiscountCode, DiscountRedemption } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { MAX_CART_LINES, MAX_LINE_QUANTITY, priceCart, type CheckoutCartItem, type PriceCartInput } from '../../domain/pricing/cart';
import { AppError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { insertCartProduct, insertCoupon } from '../fixtures/cart';
import { newTenant } from '../fixtures/workspaces';
import { createTestContext, type TestContext } from '../helpers/context';

let ctx: TestContext;
let tenant: Tenant;

beforeAll(async () => {
  ctx = await createTestContext();
  tenant = await newTenant(ctx);
});
afterAll(() => ctx.close());

const price = (input: PriceCartInput, owner: Tenant = tenant) => priceCart(ctx.sequelize, owner, input);

/** Asserts a 400 VALIDATION_ERROR whose details hold `detail` (a field, and a reason for coupons). */
async function expectRefused(promise: Promise<unknown>, detail: Record<string, unknown>): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('VALIDATION_ERROR');
  expect((error as AppError).details).toEqual(expect.arrayContaining([expect.objectContaining(detail)]));
  expect((error as AppError).message).toMatch(new RegExp(`^${String(detail.field).replace(/\./g, '\\.')}: `));
}

describe('priceCart: prices', () => {
  it('prices each line from the catalogue in the smallest unit, in request order, keyed 1, 2, …', async () => {
    const ebook = await insertCartProduct(tenant, { name: 'Ebook', price: 25, currency: 'USD' });
    const course = await insertCartProduct(tenant, { name: 'Course', price: 199, currency: 'USD', licenseEnabled: true });
    const priced = await price({ items: [{ productId: course.id, quantity: 1 }, { productId: ebook.id, quantity: 3 }] });
    expect(priced).toEqual({
      currency: 'USD',
      lines: [
        { lineKey: '1', productId: course.id, variantId: null, name: 'Course', variantName: null, quantity: 1, unitAmount: 19_900, amount: 19_900 },
        { lineKey: '2', productId: ebook.id, variantId: null, name: 'Ebook', variantName: null, quantity: 3, unitAmount: 2_500, amount: 7_500 },
      ],
      subtotal: 27_400,
      discount: null,
      total: 27_400,
      requiresShipping: false,
      products: expect.any(Map),
    });
    expect(priced.products.get(course.id)).toMatchObject({ id: course.id, type: 'digital', licenseEnabled: true, price: 199, currency: 'USD' });
  });

  it('keeps rupiah as they are (IDR has no minor unit in use) and says when a physical product needs shipping', async () => {
    const shoe = await insertCartProduct(tenant, { price: 150_000, currency: 'IDR', type: 'physical' });
    const priced = await price({ items: [{ productId: shoe.id, quantity: 2 }] });
    expect(priced).toMatchObject({ currency: 'IDR', subtotal: 300_000, total: 300_000, requiresShipping: true });
    expect(priced.lines[0]).toMatchObject({ unitAmount: 150_000, amount: 300_000 });
  });

  it('reads inside the caller’s transaction, and names a single item where the caller puts it', async () => {
    const product = await insertCartProduct(tenant);
    const priced = await ctx.sequelize.transaction((tx) => priceCart(tx, tenant, { items: [{ productId: product.id, quantity: 1 }] }));
    expect(priced.total).toBe(2_500);
    await expectRefused(
      priceCart(ctx.sequelize, tenant, { items: [{ productId: product.id, quantity: 0 }] }, { itemField: (_i, key) => key }),
      { field: 'quantity' },
    );
  });
});

describe('priceCart: refusals (400 VALIDATION_ERROR naming the item)', () => {
  it('refuses an empty cart and one of more than the line cap', async () => {
    await expectRefused(price({ items: [] }), { field: 'items' });
    const product = await insertCartProduct(tenant);
    const many = Array.from({ length: MAX_CART_LINES + 1 }, () => ({ productId: product.id, quantity: 1 }));
    await expectRefused(price({ items: many }), { field: 'items', message: `at most ${MAX_CART_LINES} items` });
  });

  it.each([0, -1, 1.5, MAX_LINE_QUANTITY + 1, Number.NaN])('refuses quantity %p', async (quantity) => {
    const product = await insertCartProduct(tenant);
    await expectRefused(price({ items: [{ productId: product.id, quantity: 1 }, { productId: (await insertCartProduct(tenant)).id, quantity }] }), { field: 'items.1.quantity' });
  });

  it('refuses an unknown variant id and the same product twice', async () => {
    const product = await insertCartProduct(tenant);
    await expectRefused(price({ items: [{ productId: product.id, variantId: newId('var'), quantity: 1 }] }), { field: 'items.0.variantId' });
    await expectRefused(
      price({ items: [{ productId: product.id, quantity: 1 }, { productId: product.id, quantity: 2 }] }),
      { field: 'items.1.productId', message: 'repeats items.0.productId: send one item with the total quantity' },
    );
  });

  it('answers unknown, another workspace’s, the other environment’s, unpublished and archived products alike', async () => {
    const other = await newTenant(ctx);
    const candidates = [
      newId('prod'),
      (await insertCartProduct(other)).id,
      (await insertCartProduct({ ...tenant, environment: 'live' })).id,
      (await insertCartProduct(tenant, { published: false })).id,
      (await insertCartProduct(tenant, { archived: true })).id,
    ];
    const good = await insertCartProduct(tenant);
    for (const productId of candidates) {
      await expectRefused(price({ items: [{ productId: good.id, quantity: 1 }, { productId, quantity: 1 }] }), {
        field: 'items.1.productId',
        message: 'no published product with this id in this store',
      });
    }
  });

  it('refuses subscription products (sold through subscriptions) and carts mixing currencies', async () => {
    const plan = await insertCartProduct(tenant, { type: 'subscription' });
    await expectRefused(price({ items: [{ productId: plan.id, quantity: 1 }] }), { field: 'items.0.productId' });
    const usd = await insertCartProduct(tenant, { currency: 'USD' });
    const idr = await insertCartProduct(tenant, { currency: 'IDR', price: 50_000 });
    await expectRefused(price({ items: [{ productId: usd.id, quantity: 1 }, { productId: idr.id, quantity: 1 }] }), { field: 'items' });
  });

  it('refuses a total beyond what an amount can hold exactly', async () => {
    const dear = await insertCartProduct(tenant, { price: 90_000_000_000_000, currency: 'USD' });
    await expectRefused(price({ items: [{ productId: dear.id, quantity: 2 }] }), { field: 'items', message: 'the total is larger than a checkout can hold' });
  });
});

describe('priceCart: coupons', () => {
  const cart = async (owner: Tenant = tenant) => {
    const a = await insertCartProduct(owner, { price: 30, tags: ['Books'] });
    const b = await insertCartProduct(owner, { price: 70 });
    const items: CheckoutCartItem[] = [{ productId: a.id, quantity: 1 }, { productId: b.id, quantity: 1 }];
    return { a, b, items };
  };

  it('applies a percent code (rounded up, for the buyer) and a fixed one, through the one discount validation', async () => {
    const { items } = await cart();
    const percent = await insertCoupon(tenant, { type: 'percent', value: 15 });
    expect(await price({ items, couponCode: percent.code.toLowerCase() })).toMatchObject({
      subtotal: 10_000,
      discount: { id: percent.id, code: percent.code, amount: 1_500 },
      total: 8_500,
    });
    const odd = await insertCoupon(tenant, { type: 'percent', value: 33 });
    expect((await price({ items, couponCode: odd.code })).discount?.amount).toBe(3_300);
    const fixed = await insertCoupon(tenant, { type: 'fixed', value: 1_234 });
    expect(await price({ items, couponCode: fixed.code })).toMatchObject({ discount: { id: fixed.id, amount: 1_234 }, total: 8_766 });
  });

  it('takes a scoped code off the eligible lines only (products, tags)', async () => {
    const { a, items } = await cart();
    const byProduct = await insertCoupon(tenant, { type: 'percent', value: 50, scope: 'products', productIds: [a.id] });
    expect((await price({ items, couponCode: byProduct.code })).discount?.amount).toBe(1_500);
    const byTag = await insertCoupon(tenant, { type: 'fixed', value: 5_000, scope: 'tags', tagFilter: ['books'] });
    expect((await price({ items, couponCode: byTag.code })).discount?.amount).toBe(3_000);
  });

  const day = 24 * 60 * 60 * 1000;
  const refusals: [string, (owner: Tenant, ids: { a: string; b: string }) => Promise<{ code: string }>][] = [
    ['CODE_NOT_FOUND', async () => ({ code: 'NO-SUCH-CODE' })],
    ['INACTIVE', (owner) => insertCoupon(owner, { active: false })],
    ['NOT_YET_VALID', (owner) => insertCoupon(owner, { startsAt: new Date(Date.now() + day) })],
    ['EXPIRED', (owner) => insertCoupon(owner, { expiresAt: new Date(Date.now() - day) })],
    ['MAX_USES_REACHED', (owner) => insertCoupon(owner, { maxUsesTotal: 2, usesTotal: 2 })],
    [
      'CUSTOMER_LIMIT_REACHED',
      async (owner) => {
        const code = await insertCoupon(owner, { maxUsesPerCustomer: 1 });
        await DiscountRedemption.create({ id: newId('dred'), ...owner, discountId: code.id, reference: newId('cs'), customerEmail: 'buyer@example.com', customerId: null, amount: 100 });
        return code;
      },
    ],
    ['CURRENCY_MISMATCH', (owner) => insertCoupon(owner, { currency: 'IDR' })],
    ['MIN_PURCHASE_NOT_MET', (owner) => insertCoupon(owner, { minPurchaseAmount: 10_001 })],
    ['SCOPE_MISMATCH', (owner) => insertCoupon(owner, { scope: 'tags', tagFilter: ['music'] })],
    ['SHIPPING_NOT_CHARGED', (owner) => insertCoupon(owner, { type: 'shipping_percent', value: 50 })],
    ['SHIPPING_NOT_CHARGED', (owner) => insertCoupon(owner, { type: 'shipping_fixed', value: 500 })],
    ['NOTHING_TO_PAY', (owner) => insertCoupon(owner, { type: 'percent', value: 100 })],
    ['NOTHING_TO_PAY', (owner) => insertCoupon(owner, { type: 'fixed', value: 10_000 })],
  ];

  it.each(refusals)('refuses a code that does not apply with its reason: %s', async (reason, make) => {
    const owner = await newTenant(ctx);
    const { a, b, items } = await cart(owner);
    const { code } = await make(owner, { a: a.id, b: b.id });
    const before = await DiscountCode.findAll({ where: { accountId: owner.accountId }, raw: true });
    await expectRefused(price({ items, couponCode: code, customerEmail: 'Buyer@Example.com' }, owner), { field: 'couponCode', reason });
    expect(await DiscountCode.findAll({ where: { accountId: owner.accountId }, raw: true })).toEqual(before);
  });

  it('leaves a total of exactly one smallest unit payable', async () => {
    const { items } = await cart();
    const almost = await insertCoupon(tenant, { type: 'fixed', value: 9_999 });
    expect(await price({ items, couponCode: almost.code })).toMatchObject({ discount: { amount: 9_999 }, total: 1 });
  });
});
