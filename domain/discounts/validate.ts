import { col, fn, Op, where, type Sequelize, type Transaction } from 'sequelize';
import { readCartProducts } from '../../db/cart-products';
import { countCustomerRedemptions } from '../../db/discounts';
import { DiscountCode, type Currency, type DiscountType } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { validationError, type ErrorDetail } from '../../lib/errors';
import { toSmallestUnit } from '../../lib/money';
import { resolveCartVariants, unitPriceOf } from '../inventory/cart-variants';
import { discountAmount, lineIsEligible, type PricedLine } from './amount';
import { SHIPPING_TYPES } from './inputs';

/**
 * The one discount validation, for the public validate-discount route and every checkout: the code and the
 * cart's products are read from the database (prices and tags never come from the request), then the checks
 * run in document 1's order and the first failing one is the answer (docs/decisions/discounts.md).
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

export interface CartItem {
  productId: string;
  variantId?: string | null;
  quantity: number;
}

export interface DiscountValidationInput {
  tenant: Tenant;
  code: string;
  items: CartItem[];
  /** What the client computed; the catalogue's subtotal is used instead (it is only ever informative). */
  subtotalAmount?: number;
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

/** Prices the cart from the catalogue; a line the buyer cannot buy is a malformed request (400), not a refusal. */
async function priceCart(sequelize: Sequelize, tenant: Tenant, items: CartItem[], transaction?: Transaction): Promise<{ lines: PricedLine[]; currency: Currency }> {
  const products = await readCartProducts(sequelize, tenant, [...new Set(items.map((item) => item.productId))], transaction);
  const issues: ErrorDetail[] = [];
  items.forEach((item, i) => {
    if (!products.has(item.productId)) issues.push({ field: `items.${i}.productId`, message: 'no published product with this id in this store' });
  });
  // The variant priced as checkout prices it: the one named (an active variant of the product), else the default.
  const { variants, issues: variantIssues } = await resolveCartVariants(sequelize, tenant, items, products, (i) => `items.${i}.variantId`, transaction);
  issues.push(...variantIssues);
  const currencies = new Set([...products.values()].map((p) => p.currency));
  if (issues.length === 0 && currencies.size > 1) issues.push({ field: 'items', message: 'all products of a cart must share one currency' });
  if (issues.length > 0) throw validationError(`${issues[0]!.field}: ${issues[0]!.message}`, issues);
  const lines = items.map((item, i) => {
    const product = products.get(item.productId)!;
    return { productId: product.id, tags: product.tags, amount: toSmallestUnit(unitPriceOf(product, variants[i] ?? null) * item.quantity, product.currency) };
  });
  return { lines, currency: [...currencies][0]! };
}

export async function validateDiscount(sequelize: Sequelize, input: DiscountValidationInput, transaction?: Transaction): Promise<DiscountValidation> {
  const now = input.now ?? new Date();
  const { lines, currency } = await priceCart(sequelize, input.tenant, input.items, transaction);
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
