import { CURRENCY_EXPONENTS, toSmallestUnit } from '../../lib/money';

describe('toSmallestUnit', () => {
  it('scales whole units by the currency exponent: USD cents, IDR rupiah', () => {
    expect(CURRENCY_EXPONENTS).toEqual({ IDR: 0, USD: 2 });
    expect(toSmallestUnit(12, 'USD')).toBe(1_200);
    expect(toSmallestUnit(150_000, 'IDR')).toBe(150_000);
    expect(toSmallestUnit(0, 'USD')).toBe(0);
  });

  it('refuses an amount the smallest unit cannot hold exactly', () => {
    expect(() => toSmallestUnit(Number.MAX_SAFE_INTEGER, 'USD')).toThrow(RangeError);
  });
});
