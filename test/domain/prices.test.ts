import { unitPriceOf } from '../../domain/inventory/cart-variants';
import { resolvedPriceIssue } from '../../domain/products/price';
import { formatPrice } from '../../domain/storefront/feeds';
import { toSmallestUnit } from '../../lib/money';

// Catalogue prices are whole units (document 1; docs/decisions/money.md, inventory.md "Variants", storefront.md "Channel feeds").

describe('a variant’s resolved price', () => {
  it('is the product’s price plus the delta, or the product’s alone without a variant', () => {
    expect(unitPriceOf({ price: 150_000 }, { priceDelta: 25_000 })).toBe(175_000);
    expect(unitPriceOf({ price: 20 }, { priceDelta: -5 })).toBe(15);
    expect(unitPriceOf({ price: 20 }, null)).toBe(20);
  });

  it('must be at least 1: a delta that takes it to 0 or below is refused', () => {
    expect(resolvedPriceIssue(10, 'USD', -9)).toBeUndefined();
    expect(resolvedPriceIssue(10, 'USD', -10)).toMatch(/must be at least 1/);
    expect(resolvedPriceIssue(10, 'IDR', -11)).toMatch(/must be at least 1/);
  });

  it('must stay exact in the smallest unit: the bound is 100 times lower in USD than in IDR', () => {
    const largestUsd = Math.floor(Number.MAX_SAFE_INTEGER / 100);
    expect(resolvedPriceIssue(largestUsd, 'USD', 0)).toBeUndefined();
    expect(resolvedPriceIssue(largestUsd, 'USD', 1)).toMatch(/too large/);
    expect(resolvedPriceIssue(largestUsd + 1, 'IDR', 0)).toBeUndefined();
    expect(resolvedPriceIssue(Number.MAX_SAFE_INTEGER, 'IDR', 1)).toMatch(/too large/);
    // Whatever the rule accepts, checkout can convert.
    expect(toSmallestUnit(largestUsd, 'USD')).toBe(largestUsd * 100);
  });
});

describe('formatPrice (channel feeds)', () => {
  it('writes whole units with the currency’s decimals and its code, no grouping', () => {
    expect(formatPrice(10, 'USD')).toBe('10.00 USD');
    expect(formatPrice('199', 'USD')).toBe('199.00 USD');
    expect(formatPrice(150_000, 'IDR')).toBe('150000 IDR');
    expect(formatPrice(1_234_567, 'USD')).toBe('1234567.00 USD');
  });
});
