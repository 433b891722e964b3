import type { DisbursementSubmission, PayoutWorkflowInput, SettlementInput, SettlementResult, SettlementSchedule, SettlementSweepResult } from '../../workflows/messages';

/** The payout workflow's activity: a provider payout's disbursement (activities/payouts.ts). */
export type PayoutActivities = {
  submitPayoutDisbursement(input: PayoutWorkflowInput): Promise<DisbursementSubmission>;
};

/** The settlement workflow's activities (activities/payouts.ts). */
export type SettlementActivities = {
  scheduleSettlement(input: SettlementInput): Promise<SettlementSchedule>;
  settleCheckoutCredit(input: SettlementInput): Promise<SettlementResult>;
};

/** The settlement sweep's activity (activities/payouts.ts). */
export type SettlementSweepActivities = {
  settleDueCredits(): Promise<SettlementSweepResult>;
};
