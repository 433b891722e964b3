import { Transaction, type Sequelize } from 'sequelize';
import { readCartProducts, type CartProduct } from '../../db/cart-products';
import type { CheckoutLineItem, Currency } from '../../db/models';
import { connectionOf } from '../../db/outbox';
import type { Tenant } from '../../db/tenancy';
import { validationError, type ErrorDetail } from '../../lib/errors';
import { toSmallestUnit } from '../../lib/money';
import { validateDiscount, type DiscountRefusal, type DiscountValidation, type PricedLine } from '../discounts';
import { resolveCartVariants, unitPriceOf } from '../inventory';

/**
 * The one cart pricing (`priceCartLines`), for every checkout that sells products (storefront buy-now and cart,
 * manual checkout) and for the public discount quote, so a quoted discount is the one charged: the request names
 * products and quantities, never prices. Nothing here writes; every refusal is a `400 VALIDATION_ERROR` whose
 * details name the item (docs/decisions/storefront-checkout.md, Pricing).
 */

/** Lines per cart and units per line, the same bounds as the public discount quote (docs/decisions/discounts.md). */
export const MAX_CART_LINES = 100;
export const MAX_LINE_QUANTITY = 10_000;

export interface CheckoutCartItem {
  productId: string;
  variantId?: string | null;
  quantity: number;
}

export interface PriceCartInput {
  items: CheckoutCartItem[];
  couponCode?: string | null;
  /** The buyer, for the code's per-customer limit. */
  customerEmail?: string | null;
  customerId?: string | null;
  now?: Date;
}

/**
 * Why a coupon is refused at checkout: the discount validation's reasons, and two of checkout's own —
 * a shipping discount while checkout charges no shipping, and a discount that would leave nothing to pay.
 */
export type CouponRefusal = DiscountRefusal | 'SHIPPING_NOT_CHARGED' | 'NOTHING_TO_PAY';

/** A cart priced from the catalogue, before any coupon. */
export interface PricedLines {
  currency: Currency;
  /** In request order, keyed '1', '2', …; amounts in the currency's smallest unit at list price. */
  lines: CheckoutLineItem[];
  subtotal: number;
  /** A line is a physical product: the buyer must give a shipping address. */
  requiresShipping: boolean;
  /** The catalogue rows priced, by id. */
  products: Map<string, CartProduct>;
}

export interface PricedCart extends PricedLines {
  discount: { id: string; code: string; amount: number } | null;
  /** subtotal − discount, at least 1. */
  total: number;
}

export interface QuoteInput {
  code: string;
  items: CheckoutCartItem[];
  customerEmail?: string | null;
  customerId?: string | null;
  /** Smallest unit; what the shipping types discount (checkout charges none: absent, 0). */
  shippingAmount?: number;
  now?: Date;
}

export interface PriceCartOptions {
  /** Where an item's field is in the caller's request (default `items.<index>.<key>`): buy-now has one item at the top level. */
  itemField?: (index: number, key: keyof CheckoutCartItem) => string;
  /**
   * The buyable products the caller has read already, by id (buy-now reads its one by slug): not read again. An
   * item whose product is missing from it is refused like an unknown one.
   */
  catalogue?: Map<string, CartProduct>;
}

const defaultItemField = (index: number, key: keyof CheckoutCartItem) => `items.${index}.${key}`;

function refuse(issues: ErrorDetail[]): never {
  const first = issues[0]!;
  throw validationError(first.field ? `${first.field}: ${first.message}` : first.message, issues);
}

/** Checks what needs no database: count, quantities and repeated products. */
function itemIssues(items: CheckoutCartItem[], field: NonNullable<PriceCartOptions['itemField']>): ErrorDetail[] {
  if (items.length === 0) return [{ field: 'items', message: 'a checkout needs at least one item' }];
  if (items.length > MAX_CART_LINES) return [{ field: 'items', message: `at most ${MAX_CART_LINES} items` }];
  const issues: ErrorDetail[] = [];
  const firstIndex = new Map<string, number>();
  items.forEach((item, i) => {
    if (!Number.isInteger(item.quantity) || item.quantity < 1 || item.quantity > MAX_LINE_QUANTITY) {
      issues.push({ field: field(i, 'quantity'), message: `must be an integer from 1 to ${MAX_LINE_QUANTITY}` });
    }
    const repeat = repeatIssue(firstIndex, `${item.productId}\u0000${item.variantId ?? ''}`, i, field);
    if (repeat) issues.push(repeat);
  });
  return issues;
}

/**
 * One line per product (and variant): a repeat is a client's mistake, and merging would renumber the lines the
 * errors name. `firstIndex` remembers where each key was first seen.
 */
function repeatIssue(firstIndex: Map<string, number>, key: string, i: number, field: NonNullable<PriceCartOptions['itemField']>): ErrorDetail | undefined {
  const earlier = firstIndex.get(key);
  if (earlier === undefined) {
    firstIndex.set(key, i);
    return undefined;
  }
  return { field: field(i, 'productId'), message: `repeats ${field(earlier, 'productId')}: send one item with the total quantity` };
}

const connection = (db: Sequelize | Transaction): [Sequelize, Transaction | undefined] => (db instanceof Transaction ? [connectionOf(db), db] : [db, undefined]);

/**
 * The cart's lines from the catalogue: each line's unit price converted to the smallest unit first, then times the
 * quantity (exact: whole-unit integers, no division), so the line amounts, the subtotal and every discount computed
 * on them are the same wherever the cart is priced.
 */
export async function priceCartLines(db: Sequelize | Transaction, tenant: Tenant, items: CheckoutCartItem[], options: PriceCartOptions = {}): Promise<PricedLines> {
  const [sequelize, transaction] = connection(db);
  const field = options.itemField ?? defaultItemField;

  const shapeIssues = itemIssues(items, field);
  if (shapeIssues.length > 0) refuse(shapeIssues);

  const products = options.catalogue ?? (await readCartProducts(sequelize, tenant, items.map((item) => item.productId), transaction));
  const productIssues: ErrorDetail[] = [];
  items.forEach((item, i) => {
    const product = products.get(item.productId);
    // One answer for unknown, another workspace's or environment's, unpublished and archived: a buyer learns nothing of what the store hides.
    if (!product) productIssues.push({ field: field(i, 'productId'), message: 'no published product with this id in this store' });
    else if (product.type === 'subscription') {
      productIssues.push({ field: field(i, 'productId'), message: 'a subscription product is sold through a subscription, not a one-time checkout' });
    }
  });
  if (productIssues.length > 0) refuse(productIssues);

  // The variant bought: the one named, else the product's default (docs/decisions/inventory.md, "Variants at checkout").
  const { variants, issues: variantIssues } = await resolveCartVariants(sequelize, tenant, items, products, (i) => field(i, 'variantId'), transaction);
  if (variantIssues.length > 0) refuse(variantIssues);
  // Repeats as sent were refused above; what is left is an item without a variant next to one naming its default.
  const resolvedIndex = new Map<string, number>();
  const resolvedRepeats = items.flatMap((item, i) => repeatIssue(resolvedIndex, `${item.productId}\u0000${variants[i]?.id ?? ''}`, i, field) ?? []);
  if (resolvedRepeats.length > 0) refuse(resolvedRepeats);

  const currencies = new Set(items.map((item) => products.get(item.productId)!.currency));
  if (currencies.size > 1) refuse([{ field: 'items', message: `all products of a checkout must share one currency (this one mixes ${[...currencies].sort().join(' and ')})` }]);
  const currency = [...currencies][0]!;

  // Catalogue prices are whole units; a checkout holds the smallest unit (lib/money.ts).
  const lines: CheckoutLineItem[] = items.map((item, i) => {
    const product = products.get(item.productId)!;
    const variant = variants[i] ?? null;
    const unitAmount = toSmallestUnit(unitPriceOf(product, variant), product.currency);
    return {
      lineKey: String(i + 1),
      productId: product.id,
      variantId: variant?.id ?? null,
      name: product.name,
      variantName: variant?.name ?? null,
      quantity: item.quantity,
      unitAmount,
      amount: unitAmount * item.quantity,
    };
  });
  const subtotal = lines.reduce((sum, line) => sum + line.amount, 0);
  if (!Number.isSafeInteger(subtotal)) refuse([{ field: 'items', message: 'the total is larger than a checkout can hold' }]);

  return { currency, lines, subtotal, requiresShipping: lines.some((line) => products.get(line.productId!)!.type === 'physical'), products };
}

/** The code checked against the priced lines themselves, each with its product's tags (for tag scopes). */
function quoteOn(sequelize: Sequelize, tenant: Tenant, cart: PricedLines, input: Omit<QuoteInput, 'items'>, transaction?: Transaction): Promise<DiscountValidation> {
  const lines: PricedLine[] = cart.lines.map((line) => ({ productId: line.productId!, tags: cart.products.get(line.productId!)!.tags, amount: line.amount }));
  return validateDiscount(
    sequelize,
    { tenant, code: input.code, cart: { currency: cart.currency, lines }, customerEmail: input.customerEmail ?? null, customerId: input.customerId ?? null, shippingAmount: input.shippingAmount, now: input.now },
    transaction,
  );
}

/** The public discount quote: the cart priced as a checkout of it is, then the code checked on those lines. */
export async function quoteDiscount(db: Sequelize | Transaction, tenant: Tenant, input: QuoteInput, options: PriceCartOptions = {}): Promise<DiscountValidation> {
  const [sequelize, transaction] = connection(db);
  return quoteOn(sequelize, tenant, await priceCartLines(db, tenant, input.items, options), input, transaction);
}

/** A checkout's price: the cart's lines and the coupon's discount on them. */
export async function priceCart(db: Sequelize | Transaction, tenant: Tenant, input: PriceCartInput, options: PriceCartOptions = {}): Promise<PricedCart> {
  const cart = await priceCartLines(db, tenant, input.items, options);
  const discount = input.couponCode ? await applyCoupon(db, tenant, { ...input, code: input.couponCode }, cart) : null;
  return { ...cart, discount, total: cart.subtotal - (discount?.amount ?? 0) };
}

/**
 * A code that does not apply refuses the checkout (as Stripe refuses an inapplicable promotion code) rather
 * than charging the buyer a price they did not expect; the reason is in the details.
 */
async function applyCoupon(db: Sequelize | Transaction, tenant: Tenant, input: Omit<QuoteInput, 'items'>, cart: PricedLines) {
  const [sequelize, transaction] = connection(db);
  const couponIssue = (reason: CouponRefusal, message: string): never => refuse([{ field: 'couponCode', message, reason }]);
  const quote = await quoteOn(sequelize, tenant, cart, input, transaction);
  if (!quote.valid) return couponIssue(quote.reason, `the code does not apply to this checkout (${quote.reason})`);
  if (quote.appliesToShipping) return couponIssue('SHIPPING_NOT_CHARGED', 'a shipping discount, and this checkout charges no shipping');
  if (cart.subtotal - quote.discountAmount < 1) return couponIssue('NOTHING_TO_PAY', 'the discount would leave nothing to pay, and a checkout collects a payment');
  return { id: quote.discountId, code: quote.code, amount: quote.discountAmount };
}
