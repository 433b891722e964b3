import { col, fn, Op, where, type Sequelize, type Transaction } from 'sequelize';
import { countCustomerRedemptions } from '../../db/discounts';
import { DiscountCode, type Currency, type DiscountType } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { discountAmount, lineIsEligible, type PricedLine } from './amount';
import { SHIPPING_TYPES } from './inputs';

/**
 * The one discount validation, for the public validate-discount route and every checkout: the cart comes priced
 * by the one cart pricing (`priceCartLines`, domain/pricing/cart.ts), so a quote and a checkout of the same
 * cart see the same amounts; the code is read from the database, then the checks run in document 1's order and
 * the first failing one is the answer (docs/decisions/discounts.md).
 */

/** Why a code does not apply, in the order the checks run (CURRENCY_MISMATCH is ours, between 4 and 5). */
export const DISCOUNT_REFUSALS = [
  'CODE_NOT_FOUND',
  'INACTIVE',
  'NOT_YET_VALID',
  'EXPIRED',
  'MAX_USES_REACHED',
  'CUSTOMER_LIMIT_REACHED',
  'CURRENCY_MISMATCH',
  'MIN_PURCHASE_NOT_MET',
  'SCOPE_MISMATCH',
] as const;
export type DiscountRefusal = (typeof DISCOUNT_REFUSALS)[number];

export interface DiscountValidationInput {
  tenant: Tenant;
  code: string;
  /** The cart as the catalogue prices it: lines in the smallest unit, with their products' tags for tag scopes. */
  cart: { currency: Currency; lines: PricedLine[] };
  customerEmail?: string | null;
  customerId?: string | null;
  /** Smallest unit; what shipping types discount. Absent: 0. */
  shippingAmount?: number;
  now?: Date;
}

export type DiscountValidation =
  | {
      valid: true;
      discountId: string;
      code: string;
      type: DiscountType;
      value: number;
      currency: Currency;
      /** The catalogue's subtotal of the cart, smallest unit. */
      subtotalAmount: number;
      discountAmount: number;
      appliesToShipping: boolean;
    }
  | { valid: false; code: string; reason: DiscountRefusal };

export async function validateDiscount(sequelize: Sequelize, input: DiscountValidationInput, transaction?: Transaction): Promise<DiscountValidation> {
  const now = input.now ?? new Date();
  const { lines, currency } = input.cart;
  const discount = await DiscountCode.findOne({
    // lower(code) is what the unique index holds, so this is an index lookup.
    where: { ...tenantWhere(input.tenant), [Op.and]: [where(fn('lower', col('code')), input.code.toLowerCase())] },
    transaction,
  });
  if (!discount) return { valid: false, code: input.code, reason: 'CODE_NOT_FOUND' };
  const refuse = (reason: DiscountRefusal): DiscountValidation => ({ valid: false, code: discount.code, reason });

  if (!discount.active) return refuse('INACTIVE');
  if (discount.startsAt && now < discount.startsAt) return refuse('NOT_YET_VALID');
  if (discount.expiresAt && now >= discount.expiresAt) return refuse('EXPIRED');
  if (discount.maxUsesTotal !== null && discount.usesTotal >= discount.maxUsesTotal) return refuse('MAX_USES_REACHED');
  if (discount.maxUsesPerCustomer !== null) {
    const uses = await countCustomerRedemptions(sequelize, discount.id, input, transaction);
    if (uses >= discount.maxUsesPerCustomer) return refuse('CUSTOMER_LIMIT_REACHED');
  }
  // Before the amount checks: a minimum or a fixed value in another currency means nothing for this cart.
  if (discount.currency !== currency) return refuse('CURRENCY_MISMATCH');
  const subtotalAmount = lines.reduce((sum, line) => sum + line.amount, 0);
  if (discount.minPurchaseAmount !== null && subtotalAmount < discount.minPurchaseAmount) return refuse('MIN_PURCHASE_NOT_MET');
  if (!lines.some((line) => lineIsEligible(discount, line))) return refuse('SCOPE_MISMATCH');

  return {
    valid: true,
    discountId: discount.id,
    code: discount.code,
    type: discount.type,
    value: discount.value,
    currency,
    subtotalAmount,
    discountAmount: discountAmount(discount, lines, input.shippingAmount ?? 0),
    appliesToShipping: SHIPPING_TYPES.includes(discount.type),
  };
}
