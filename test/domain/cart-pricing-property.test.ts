import { Product, type Currency, type DiscountCode } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { priceCart, quoteDiscount, type CheckoutCartItem } from '../../domain/pricing/cart';
import { AppError } from '../../lib/errors';
import { CURRENCY_EXPONENTS } from '../../lib/money';
import { insertCartProduct, insertCoupon } from '../fixtures/cart';
import { insertVariant } from '../fixtures/inventory';
import { newTenant } from '../fixtures/workspaces';
import { createTestContext, type TestContext } from '../helpers/context';

// Property: for any cart, the public discount quote and the checkout of the same cart agree: the same subtotal, the
// same discount, and the checkout charges subtotal − discount (or refuses the code for the quote's reason). Random
// carts over a zero-decimal (IDR) and a two-decimal (USD) currency, variant price deltas and quantities, from a
// seed (PRICING_SEED to replay a failure), against one catalogue written once.

const SEED = Number(process.env.PRICING_SEED ?? 20_261_127);
const CASES = 300;
const TAGS = ['sale', 'new', 'gift'];

/** mulberry32: small, fast and deterministic for a given seed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(values: readonly T[]): T => values[int(0, values.length - 1)]!;
  /** `count` distinct values, in random order (a partial Fisher–Yates). */
  const sample = <T>(values: readonly T[], count: number): T[] => {
    const copy = [...values];
    for (let i = 0; i < count; i += 1) {
      const j = int(i, copy.length - 1);
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, count);
  };
  return { next, int, pick, sample };
}

interface CatalogueProduct {
  id: string;
  price: number;
  /** Variant id → priceDelta; the default is the first. */
  variants: { id: string; priceDelta: number }[];
}

let ctx: TestContext;
let tenant: Tenant;
const catalogue = new Map<Currency, CatalogueProduct[]>();
const coupons = new Map<Currency, DiscountCode[]>();
const rng = random(SEED);

beforeAll(async () => {
  ctx = await createTestContext();
  tenant = await newTenant(ctx);
  for (const currency of Object.keys(CURRENCY_EXPONENTS) as Currency[]) {
    const maxPrice = currency === 'IDR' ? 5_000_000 : 5_000;
    const products: CatalogueProduct[] = [];
    for (let i = 0; i < 8; i += 1) {
      const price = rng.int(1, maxPrice);
      const tags = TAGS.filter(() => rng.next() < 0.4);
      const product = await insertCartProduct(tenant, { price, currency, tags, type: rng.pick(['digital', 'physical'] as const) });
      const variants: CatalogueProduct['variants'] = [];
      // Half the products have variants: the default and others, priced price + priceDelta (negative allowed, at least 1 in all).
      if (i % 2 === 0) {
        await Product.update({ hasVariants: true }, { where: { id: product.id } });
        for (let v = 0; v < 3; v += 1) {
          const priceDelta = rng.int(1 - price, price);
          variants.push({ id: (await insertVariant(tenant, product.id, { isDefault: v === 0, priceDelta, name: `V${v}` })).id, priceDelta });
        }
      }
      products.push({ id: product.id, price, variants });
    }
    catalogue.set(currency, products);
    const minorMax = maxPrice * 10 ** CURRENCY_EXPONENTS[currency];
    const own = [
      ...[1, 5, 10, 33, 50, 99, 100].map((value) => insertCoupon(tenant, { type: 'percent', value, currency })),
      ...[1, 7, rng.int(1, minorMax), rng.int(1, minorMax * 3)].map((value) => insertCoupon(tenant, { type: 'fixed', value, currency })),
      insertCoupon(tenant, { type: 'percent', value: rng.int(1, 100), currency, scope: 'products', productIds: products.filter(() => rng.next() < 0.5).map((p) => p.id) }),
      insertCoupon(tenant, { type: 'fixed', value: rng.int(1, minorMax), currency, scope: 'tags', tagFilter: [rng.pick(TAGS)] }),
      insertCoupon(tenant, { type: 'percent', value: rng.int(1, 100), currency, minPurchaseAmount: rng.int(1, minorMax * 2) }),
      insertCoupon(tenant, { type: 'shipping_percent', value: 50, currency }),
    ];
    coupons.set(currency, await Promise.all(own));
  }
});
afterAll(() => ctx.close());

/** What the cart costs, worked out here in BigInt from the catalogue: Σ (price + priceDelta) × 10^exponent × quantity. */
function expectedSubtotal(currency: Currency, cart: { product: CatalogueProduct; priceDelta: number; quantity: number }[]): number {
  const scale = 10n ** BigInt(CURRENCY_EXPONENTS[currency]);
  return Number(cart.reduce((sum, line) => sum + BigInt(line.product.price + line.priceDelta) * scale * BigInt(line.quantity), 0n));
}

function reasonOf(err: unknown): string {
  if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
  return (err.details as { reason?: string }[])[0]!.reason!;
}

describe('cart pricing: the quote is what checkout charges (property, seeded)', () => {
  it(`holds for ${CASES} random carts and codes (seed ${SEED})`, async () => {
    const seen = { charged: 0, refused: 0, currencies: new Set<string>() };
    for (let n = 0; n < CASES; n += 1) {
      const currency = rng.pick(Object.keys(CURRENCY_EXPONENTS) as Currency[]);
      const products = rng.sample(catalogue.get(currency)!, rng.int(1, 4));
      const cart = products.map((product) => {
        const named = product.variants.length > 0 && rng.next() < 0.6 ? rng.pick(product.variants) : null;
        const priceDelta = named?.priceDelta ?? product.variants[0]?.priceDelta ?? 0;
        const quantity = rng.next() < 0.1 ? rng.int(1, 10_000) : rng.int(1, 5);
        return { product, priceDelta, quantity, item: { productId: product.id, variantId: named?.id, quantity } satisfies CheckoutCartItem };
      });
      // Mostly the cart's own currency; sometimes the other one's codes (CURRENCY_MISMATCH).
      const code = rng.pick(coupons.get(rng.next() < 0.9 ? currency : currency === 'USD' ? 'IDR' : 'USD')!).code;
      const items = cart.map((line) => line.item);
      const where = { seed: SEED, case: n, currency, code, items };

      const quote = await quoteDiscount(ctx.sequelize, tenant, { code: code.toLowerCase(), items });
      const checkout = await priceCart(ctx.sequelize, tenant, { items, couponCode: code }).then(
        (priced) => ({ priced, reason: null }),
        (err: unknown) => ({ priced: null, reason: reasonOf(err) }),
      );
      const subtotal = expectedSubtotal(currency, cart);
      seen.currencies.add(currency);

      if (!quote.valid) {
        expect({ ...where, reason: checkout.reason }).toEqual({ ...where, reason: quote.reason });
        seen.refused += 1;
        continue;
      }
      expect({ ...where, subtotal: quote.subtotalAmount }).toEqual({ ...where, subtotal });
      if (quote.appliesToShipping) {
        expect({ ...where, reason: checkout.reason }).toEqual({ ...where, reason: 'SHIPPING_NOT_CHARGED' });
      } else if (subtotal - quote.discountAmount < 1) {
        expect({ ...where, reason: checkout.reason }).toEqual({ ...where, reason: 'NOTHING_TO_PAY' });
      } else {
        const { priced } = checkout;
        expect({ ...where, subtotal: priced?.subtotal, discount: priced?.discount?.amount, total: priced?.total }).toEqual({
          ...where,
          subtotal,
          discount: quote.discountAmount,
          total: subtotal - quote.discountAmount,
        });
        // Each line: its unit price in the smallest unit, times the quantity.
        expect(priced!.lines.map((line) => line.amount)).toEqual(priced!.lines.map((line) => line.unitAmount * line.quantity));
        seen.charged += 1;
        continue;
      }
      seen.refused += 1;
    }
    // The generator reached both outcomes and both currencies.
    expect(seen.charged).toBeGreaterThan(CASES / 4);
    expect(seen.refused).toBeGreaterThan(0);
    expect(seen.currencies).toEqual(new Set(['IDR', 'USD']));
  });
});
