import { CURRENCY_EXPONENTS, type MoneyCurrency } from '../../lib/money';

/**
 * The rule every write of a price applies: a variant's resolved price (`price + priceDelta`, whole units) is at
 * least 1 and still exact in the smallest unit. Product price changes (service.ts) and variant writes
 * (inventory/variants.ts) both apply it.
 */
export function resolvedPriceIssue(productPrice: number, currency: MoneyCurrency, priceDelta: number): string | undefined {
  const price = productPrice + priceDelta;
  if (price < 1) return `the variant's price (product price ${productPrice} + priceDelta ${priceDelta}) must be at least 1`;
  if (!Number.isSafeInteger(price * 10 ** CURRENCY_EXPONENTS[currency])) return `the variant's price (${price} ${currency}) is too large`;
  return undefined;
}
