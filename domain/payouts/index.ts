/** The payouts area's entry: what routers, activities, the worker and other areas use of it. */
export { PayoutMissingError, submitPayoutDisbursement } from './disbursement';
export { toPayoutDto } from './dto';
export { CreatePayoutBody, MarkPayoutFailedBody, MarkPayoutInTransitBody, MarkPayoutPaidBody, UpdateBankAccountBody } from './inputs';
export { createPayoutService } from './service';
export { recordCreditDue, settleCheckoutCredit, settleDueCredits, settlementSchedule } from './settlement';
export { applyPayoutMove, canMovePayout } from './transitions';
export type { PayoutMove } from './transitions';
