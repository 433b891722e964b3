/** The discounts area's entry: what routers, activities, the worker and other areas use of it. */
export type { PricedLine } from './amount';
export { toPublicDiscountCode } from './dto';
export type { DiscountCodeRow } from './dto';
export { CreateDiscountCodeBody, UpdateDiscountCodeBody } from './inputs';
export { redeemDiscount } from './redeem';
export { createDiscountCodeService } from './service';
export { DISCOUNT_REFUSALS, validateDiscount } from './validate';
export type { DiscountRefusal, DiscountValidation } from './validate';
