/**
 * Currency exponents: how many digits of the smallest unit make one whole unit. Document 1 keeps product
 * `price` in whole units and other amounts (discount values, checkout totals) in the smallest unit, so every
 * amount that mixes the two goes through here (docs/decisions/money.md).
 */
export const CURRENCY_EXPONENTS = {
  // Rupiah has sen on paper but none in circulation or in payment rails: the smallest unit is one rupiah.
  IDR: 0,
  USD: 2,
} as const;

export type MoneyCurrency = keyof typeof CURRENCY_EXPONENTS;

/** An amount in whole units as an integer in the smallest unit (1 USD → 100, 1 IDR → 1). */
export function toSmallestUnit(wholeUnits: number, currency: MoneyCurrency): number {
  const amount = wholeUnits * 10 ** CURRENCY_EXPONENTS[currency];
  if (!Number.isSafeInteger(amount)) throw new RangeError(`${wholeUnits} ${currency} is not representable in the smallest unit`);
  return amount;
}

/** An amount in the smallest unit as a buyer reads it: `formatAmount(1999, 'USD')` → `$19.99`, `formatAmount(150000, 'IDR')` → `IDR 150,000`. */
export function formatAmount(amount: number, currency: MoneyCurrency): string {
  const digits = CURRENCY_EXPONENTS[currency];
  return new Intl.NumberFormat('en', { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount / 10 ** digits);
}

/**
 * The exponent of any ISO 4217 code: ours where we fix it (IDR 0), otherwise the standard's, as Intl knows it
 * (JPY 0, EUR 2, KWD 3). Billing records (plans, invoices) may be in currencies products are not priced in.
 */
export function currencyExponent(currency: string): number {
  if (Object.hasOwn(CURRENCY_EXPONENTS, currency)) return CURRENCY_EXPONENTS[currency as MoneyCurrency];
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** `formatAmount` for any ISO 4217 code: `formatMoney(1999, 'EUR')` → `€19.99`. */
export function formatMoney(amount: number, currency: string): string {
  const digits = currencyExponent(currency);
  return new Intl.NumberFormat('en', { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount / 10 ** digits);
}
