import { ApplicationFailure, heartbeat } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import { PayoutMissingError, settleCheckoutCredit, settleDueCredits, settlementSchedule, submitPayoutDisbursement } from '../domain/payouts';
import type { Config } from '../lib/config';
import type { CryptoBox } from '../lib/crypto-box';
import type { Logger } from '../lib/logger';
import type { DisbursementSubmission, PayoutWorkflowInput, SettlementInput, SettlementResult, SettlementSchedule, SettlementSweepResult } from '../workflows/messages';
import type { PayoutActivities, SettlementActivities, SettlementSweepActivities } from './contracts/payouts';

const tenantOf = (input: SettlementInput) => ({ accountId: input.accountId, environment: input.environment });

/** The settlement sweep, the old settlement workflow's steps, and the provider payout's disbursement. */
export function createPayoutActivities({ sequelize, config, box, logger }: { sequelize: Sequelize; config: Config; box: CryptoBox; logger: Logger }): PayoutActivities & SettlementActivities & SettlementSweepActivities {
  return {
    /** Idempotent: the payout id is the disbursement's idempotency key, and a payout already submitted is left as it is. */
    async submitPayoutDisbursement(input: PayoutWorkflowInput): Promise<DisbursementSubmission> {
      try {
        return await submitPayoutDisbursement({ sequelize, config, box, logger }, { accountId: input.accountId, environment: input.environment }, input.payoutId);
      } catch (err) {
        if (err instanceof PayoutMissingError) throw ApplicationFailure.nonRetryable(err.message, 'PayoutMissing');
        throw err;
      }
    },

    /** When the session's credit settles (this worker's delay for its environment, fixed in the history once read). */
    async scheduleSettlement(input: SettlementInput): Promise<SettlementSchedule> {
      const schedule = await settlementSchedule(sequelize, config, tenantOf(input), input.sessionId);
      // A settlement start is recorded only with its credit: nothing to settle is a bug to look at, not to retry.
      if (!schedule) throw ApplicationFailure.nonRetryable(`checkout session ${input.sessionId} has no checkout credit to settle`, 'NoCheckoutCredit');
      return schedule;
    },

    /** Idempotent: a retry after its commit answers what the first run moved. */
    settleCheckoutCredit(input: SettlementInput): Promise<SettlementResult> {
      return settleCheckoutCredit(sequelize, tenantOf(input), input.sessionId);
    },

    /** Idempotent: each credit settles under its session's lock, once, however sweeps and old runs overlap. */
    settleDueCredits(): Promise<SettlementSweepResult> {
      return settleDueCredits({ sequelize, config, logger }, { progress: () => heartbeat() });
    },
  };
}
