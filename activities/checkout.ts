import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import type { CheckoutStatus } from '../db/models';
import { createCheckoutFulfillment, expireCheckoutIfOpen, expireProviderInvoiceOf, type StepOutcome } from '../domain/checkout';
import type { Config } from '../lib/config';
import type { CryptoBox } from '../lib/crypto-box';
import type { Logger } from '../lib/logger';
import type { Mailer } from '../lib/email';
import type { CheckoutActivities, CheckoutActivityInput, CheckoutFulfillmentPlan, FulfillmentStepInput, ReceiptFailure } from './contracts/checkout';
import { createEmailSender, giveUpEmail } from './email';

const tenantOf = (input: CheckoutActivityInput) => ({ accountId: input.accountId, environment: input.environment });

/** The checkout-session workflow's steps (domain/checkout/: expiry.ts, fulfillment.ts). */
export function createCheckoutActivities(deps: { sequelize: Sequelize; config: Config; box: CryptoBox; mailer: Mailer; logger: Logger }): CheckoutActivities {
  const { sequelize, config } = deps;
  const fulfillment = createCheckoutFulfillment(deps);
  const sendQueuedEmail = createEmailSender(deps);
  return {
    /**
     * At the deadline: expires the session if it is still `open`; answers its status either way. "Now" is the
     * time Temporal scheduled this attempt, the clock of the timer that called it (and, on the time-skipping
     * test server, the skipped one). A session still `open` before its `expiresAt` by that clock is a call
     * made too early: retried, so never reported as paid. An expired provider-mode session's provider invoice is
     * expired in the same step (idempotently, so a retry after the row was written only repeats the call): the
     * workflow's history is unchanged.
     */
    async expireCheckoutIfOpen(input: CheckoutActivityInput): Promise<Exclude<CheckoutStatus, 'open'>> {
      const now = new Date(Context.current().info.currentAttemptScheduledTimestampMs);
      const status = await expireCheckoutIfOpen(sequelize, tenantOf(input), input.sessionId, now);
      if (status === 'open') throw ApplicationFailure.retryable(`checkout session ${input.sessionId} is not due to expire yet`, 'CheckoutNotDue');
      if (status === 'expired') await expireProviderInvoiceOf(config, tenantOf(input), input.sessionId);
      return status;
    },

    async planCheckoutFulfillment(input: CheckoutActivityInput): Promise<CheckoutFulfillmentPlan> {
      return { steps: await fulfillment.plan(tenantOf(input), input.sessionId) };
    },

    /** One step, applied at most once per session whatever the retries (`already_applied` on a repeat). */
    async runCheckoutFulfillmentStep(input: FulfillmentStepInput): Promise<StepOutcome> {
      return fulfillment.runStep(tenantOf(input), input.sessionId, input.step, input.receiptSender ?? 'email-delivery');
    },

    /** One attempt at the receipt the `email:receipt` step queued (activities/email.ts, createEmailSender). */
    async sendCheckoutReceipt(input: CheckoutActivityInput): Promise<'sent' | 'already_sent' | 'already_failed'> {
      return sendQueuedEmail(tenantOf(input), await fulfillment.receiptEmailId(tenantOf(input), input.sessionId));
    },

    /** After a failed attempt: refused for good ends the row `failed`; anything else goes to the receipt's email-delivery workflow. */
    async handOffCheckoutReceipt(input: ReceiptFailure): Promise<'handed_off' | 'given_up'> {
      const tenant = tenantOf(input);
      if (input.refused) {
        await giveUpEmail(sequelize, tenant, await fulfillment.receiptEmailId(tenant, input.sessionId), input.error);
        return 'given_up';
      }
      await fulfillment.handOffReceipt(tenant, input.sessionId);
      return 'handed_off';
    },
  };
}
