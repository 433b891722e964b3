import { CURRENCY_EXPONENTS, currencyExponent, formatAmount, formatMoney, toSmallestUnit } from '../../lib/money';

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

  it('refuses a fraction of the smallest unit instead of rounding it (money.md: nothing is rounded)', () => {
    expect(() => toSmallestUnit(1.5, 'IDR')).toThrow(RangeError);
    expect(() => toSmallestUnit(0.001, 'USD')).toThrow(RangeError);
    expect(toSmallestUnit(1.5, 'USD')).toBe(150);
  });

  it('holds exactly up to 2^53 − 1 in the smallest unit and no further', () => {
    const largestWholeUsd = Math.floor(Number.MAX_SAFE_INTEGER / 100);
    expect(toSmallestUnit(largestWholeUsd, 'USD')).toBe(largestWholeUsd * 100);
    expect(() => toSmallestUnit(largestWholeUsd + 1, 'USD')).toThrow(RangeError);
    expect(toSmallestUnit(Number.MAX_SAFE_INTEGER, 'IDR')).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('currencyExponent', () => {
  it('makes IDR 0 (no sen in circulation) and USD 2', () => {
    expect(currencyExponent('IDR')).toBe(0);
    expect(currencyExponent('USD')).toBe(2);
  });

  it('takes the standard exponent for billing currencies products are not priced in', () => {
    expect(['JPY', 'KRW', 'EUR', 'GBP', 'KWD', 'BHD'].map(currencyExponent)).toEqual([0, 0, 2, 2, 3, 3]);
  });
});

// Intl puts a no-break space between a currency code and the number.
const NBSP = '\u00a0';

describe('formatAmount and formatMoney', () => {
  it('show a smallest-unit amount in whole units with exactly the currency’s decimals', () => {
    expect(formatAmount(1_999, 'USD')).toBe('$19.99');
    expect(formatAmount(5, 'USD')).toBe('$0.05');
    expect(formatAmount(1_200, 'USD')).toBe('$12.00');
    expect(formatAmount(150_000, 'IDR')).toBe(`IDR${NBSP}150,000`);
    expect(formatAmount(-1_999, 'USD')).toBe('-$19.99');
  });

  it('format any ISO 4217 code by its exponent, IDR still without decimals', () => {
    expect(formatMoney(1_999, 'EUR')).toBe('€19.99');
    expect(formatMoney(1_500, 'JPY')).toBe('¥1,500');
    expect(formatMoney(1_234, 'KWD')).toBe(`KWD${NBSP}1.234`);
    expect(formatMoney(150_000, 'IDR')).toBe(`IDR${NBSP}150,000`);
  });
});
