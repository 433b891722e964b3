/** The pricing area's entry: what routers, activities, the worker and other areas use of it. */
export { MAX_CART_LINES, MAX_LINE_QUANTITY, priceCart, quoteDiscount } from './cart';
export type { CheckoutCartItem, PriceCartOptions, PricedCart } from './cart';
