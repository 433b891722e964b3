import type { DiscountScope, DiscountType } from '../../db/models';
import { PERCENT_TYPES, SHIPPING_TYPES } from './inputs';

/** The arithmetic of a discount, in the currency's smallest unit (docs/decisions/discounts.md, Amounts). */

/** A priced cart line: `amount` is price × quantity in the smallest unit. */
export interface PricedLine {
  productId: string;
  tags: string[];
  amount: number;
}

export interface DiscountTerms {
  type: DiscountType;
  value: number;
  scope: DiscountScope;
  productIds: string[] | null;
  tagFilter: string[] | null;
}

/** Whether a line is one the code applies to: every line for scope cart, else a listed product or a matching tag. */
export function lineIsEligible(terms: DiscountTerms, line: PricedLine): boolean {
  switch (terms.scope) {
    case 'cart':
      return true;
    case 'products':
      return terms.productIds?.includes(line.productId) ?? false;
    case 'tags': {
      // Match-any, case-insensitive: tags are typed by hand on products and on codes.
      const wanted = new Set(terms.tagFilter?.map((tag) => tag.toLowerCase()));
      return line.tags.some((tag) => wanted.has(tag.toLowerCase()));
    }
  }
}

/** `percent` % of `amount`, rounded up: a fraction of the smallest unit goes to the buyer. Exact for any safe integer. */
export function percentOf(amount: number, percent: number): number {
  return Number((BigInt(amount) * BigInt(percent) + 99n) / 100n);
}

/**
 * The discount: percent types take their percentage (rounded up), fixed types their value; never more than
 * what they apply to — the eligible lines' subtotal, or the shipping amount for the shipping types.
 */
export function discountAmount(terms: DiscountTerms, lines: PricedLine[], shippingAmount: number): number {
  const base = SHIPPING_TYPES.includes(terms.type)
    ? shippingAmount
    : lines.filter((line) => lineIsEligible(terms, line)).reduce((sum, line) => sum + line.amount, 0);
  const discount = PERCENT_TYPES.includes(terms.type) ? percentOf(base, terms.value) : terms.value;
  return Math.min(discount, base);
}
