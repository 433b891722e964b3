import { discountAmount, lineIsEligible, percentOf, type DiscountTerms, type PricedLine } from '../../domain/discounts/amount';
import { discountRuleIssues } from '../../domain/discounts/inputs';

// The arithmetic of docs/decisions/discounts.md, "Amounts": no database, the terms and lines as values.

const terms = (over: Partial<DiscountTerms>): DiscountTerms => ({ type: 'percent', value: 10, scope: 'cart', productIds: null, tagFilter: null, ...over });
const line = (productId: string, amount: number, tags: string[] = []): PricedLine => ({ productId, tags, amount });

describe('percentOf', () => {
  it('rounds a fraction of the smallest unit up, for the buyer', () => {
    expect(percentOf(1_000, 15)).toBe(150);
    expect(percentOf(1, 1)).toBe(1);
    expect(percentOf(199, 50)).toBe(100);
    expect(percentOf(101, 1)).toBe(2);
    expect(percentOf(100, 1)).toBe(1);
    expect(percentOf(0, 50)).toBe(0);
    expect(percentOf(12_345, 100)).toBe(12_345);
  });

  it('is exact where amount × percent passes 2^53 (BigInt)', () => {
    // 9007199254740991 × 33 is far past 2^53: float arithmetic would be off by units.
    expect(percentOf(Number.MAX_SAFE_INTEGER, 33)).toBe(2_972_375_754_064_528);
    expect(percentOf(Number.MAX_SAFE_INTEGER, 100)).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('lineIsEligible', () => {
  it('takes every line for scope cart', () => {
    expect(lineIsEligible(terms({ scope: 'cart' }), line('prod_a', 1))).toBe(true);
  });

  it('takes listed products only for scope products, none when the list is missing', () => {
    const byProduct = terms({ scope: 'products', productIds: ['prod_a'] });
    expect(lineIsEligible(byProduct, line('prod_a', 1))).toBe(true);
    expect(lineIsEligible(byProduct, line('prod_b', 1))).toBe(false);
    expect(lineIsEligible(terms({ scope: 'products', productIds: null }), line('prod_a', 1))).toBe(false);
  });

  it('matches any tag case-insensitively for scope tags', () => {
    const byTag = terms({ scope: 'tags', tagFilter: ['Books', 'music'] });
    expect(lineIsEligible(byTag, line('prod_a', 1, ['BOOKS']))).toBe(true);
    expect(lineIsEligible(byTag, line('prod_a', 1, ['film', 'Music']))).toBe(true);
    expect(lineIsEligible(byTag, line('prod_a', 1, ['film']))).toBe(false);
    expect(lineIsEligible(byTag, line('prod_a', 1, []))).toBe(false);
    expect(lineIsEligible(terms({ scope: 'tags', tagFilter: null }), line('prod_a', 1, ['books']))).toBe(false);
  });
});

describe('discountAmount', () => {
  const cart = [line('prod_a', 3_000, ['books']), line('prod_b', 7_000)];

  it('takes a percentage of the eligible subtotal, rounded up; a fixed value as it is', () => {
    expect(discountAmount(terms({ type: 'percent', value: 15 }), cart, 0)).toBe(1_500);
    expect(discountAmount(terms({ type: 'percent', value: 33 }), [line('prod_a', 1_001)], 0)).toBe(331); // 330.33 → 331
    expect(discountAmount(terms({ type: 'fixed', value: 1_234 }), cart, 0)).toBe(1_234);
  });

  it('computes on the eligible lines only (scope products or tags)', () => {
    expect(discountAmount(terms({ type: 'percent', value: 50, scope: 'products', productIds: ['prod_a'] }), cart, 0)).toBe(1_500);
    expect(discountAmount(terms({ type: 'percent', value: 50, scope: 'tags', tagFilter: ['Books'] }), cart, 0)).toBe(1_500);
  });

  it('caps a fixed value at what it applies to: the eligible subtotal, never the whole cart', () => {
    expect(discountAmount(terms({ type: 'fixed', value: 50_000 }), cart, 0)).toBe(10_000);
    expect(discountAmount(terms({ type: 'fixed', value: 5_000, scope: 'tags', tagFilter: ['books'] }), cart, 0)).toBe(3_000);
    expect(discountAmount(terms({ type: 'fixed', value: 10_000 }), cart, 0)).toBe(10_000);
    expect(discountAmount(terms({ type: 'fixed', value: 500, scope: 'products', productIds: ['prod_z'] }), cart, 0)).toBe(0);
  });

  it('caps 100 % at the subtotal exactly, on a zero-decimal (IDR) amount as on cents', () => {
    expect(discountAmount(terms({ type: 'percent', value: 100 }), [line('prod_a', 150_000)], 0)).toBe(150_000);
    expect(discountAmount(terms({ type: 'percent', value: 10 }), [line('prod_a', 150_005)], 0)).toBe(15_001); // 15 000.5 rupiah → 15 001
  });

  it('takes shipping types off the shipping amount (capped there), whatever the lines; none without shipping', () => {
    expect(discountAmount(terms({ type: 'shipping_percent', value: 50 }), cart, 1_001)).toBe(501);
    expect(discountAmount(terms({ type: 'shipping_fixed', value: 2_000 }), cart, 1_500)).toBe(1_500);
    expect(discountAmount(terms({ type: 'shipping_fixed', value: 500 }), cart, 1_500)).toBe(500);
    expect(discountAmount(terms({ type: 'shipping_percent', value: 50 }), cart, 0)).toBe(0);
    expect(discountAmount(terms({ type: 'shipping_fixed', value: 500 }), cart, 0)).toBe(0);
  });
});

describe('discountRuleIssues (the cross-field rules of a code)', () => {
  const fields = (shape: Parameters<typeof discountRuleIssues>[0], sent: Parameters<typeof discountRuleIssues>[1] = {}) =>
    discountRuleIssues(shape, sent).map((issue) => issue.field);

  it('takes percent types from 1 to 100 and fixed types beyond', () => {
    expect(fields({ type: 'percent', value: 100, scope: 'cart' })).toEqual([]);
    expect(fields({ type: 'percent', value: 101, scope: 'cart' })).toEqual(['value']);
    expect(fields({ type: 'shipping_percent', value: 101, scope: 'cart' })).toEqual(['value']);
    expect(fields({ type: 'fixed', value: 50_000, scope: 'cart' })).toEqual([]);
    expect(fields({ type: 'shipping_fixed', value: 50_000, scope: 'cart' })).toEqual([]);
  });

  it('requires the list of its scope and refuses a list sent for another scope', () => {
    expect(fields({ type: 'fixed', value: 1, scope: 'products' })).toEqual(['productIds']);
    expect(fields({ type: 'fixed', value: 1, scope: 'products', productIds: [] })).toEqual(['productIds']);
    expect(fields({ type: 'fixed', value: 1, scope: 'tags', tagFilter: [] })).toEqual(['tagFilter']);
    expect(fields({ type: 'fixed', value: 1, scope: 'products', productIds: ['prod_a'] }, { productIds: ['prod_a'] })).toEqual([]);
    expect(fields({ type: 'fixed', value: 1, scope: 'cart' }, { productIds: ['prod_a'], tagFilter: ['x'] })).toEqual(['productIds', 'tagFilter']);
    expect(fields({ type: 'fixed', value: 1, scope: 'tags', tagFilter: ['x'] }, { productIds: ['prod_a'] })).toEqual(['productIds']);
    // A list left from an earlier scope (stored, not sent) is the caller's to clear, not a refusal.
    expect(fields({ type: 'fixed', value: 1, scope: 'cart', productIds: ['prod_a'] }, {})).toEqual([]);
    expect(fields({ type: 'fixed', value: 1, scope: 'cart' }, { productIds: null, tagFilter: null })).toEqual([]);
  });

  it('wants startsAt strictly before expiresAt, as strings or dates', () => {
    const at = '2030-01-01T00:00:00Z';
    expect(fields({ type: 'fixed', value: 1, scope: 'cart', startsAt: at, expiresAt: at })).toEqual(['expiresAt']);
    // Compared as instants, not as text: 01:00 at +07:00 on the 2nd is 18:00 UTC on the 1st, before the start.
    expect(fields({ type: 'fixed', value: 1, scope: 'cart', startsAt: '2030-01-01T19:00:00Z', expiresAt: '2030-01-02T01:00:00+07:00' })).toEqual(['expiresAt']);
    expect(fields({ type: 'fixed', value: 1, scope: 'cart', startsAt: new Date(at), expiresAt: new Date(Date.parse(at) + 1) })).toEqual([]);
    expect(fields({ type: 'fixed', value: 1, scope: 'cart', startsAt: at, expiresAt: null })).toEqual([]);
  });
});
