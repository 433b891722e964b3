import { ApplicationFailure } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import { claimEmailForSending, markEmailFailed, markEmailSent, recordEmailAttemptFailure } from '../db/email-messages';
import type { CryptoBox } from '../lib/crypto-box';
import { isPermanentSmtpFailure, type Mailer } from '../lib/email';
import type { Logger } from '../lib/logger';
import { recordMetric } from '../lib/metrics';
import { EMAIL_SEND_LEASE_MS } from '../workflows/email-timing';
import type { EmailDeliveryInput } from '../workflows/messages';
import type { EmailActivities } from './contracts/email';

/** Error types the email-delivery workflow does not retry. */
export const EMAIL_REFUSED = 'EmailRefused';

const tenantOf = (input: EmailDeliveryInput) => ({ accountId: input.accountId, environment: input.environment });

export function createEmailActivities({ sequelize, box, mailer, logger }: { sequelize: Sequelize; box: CryptoBox; mailer: Mailer; logger: Logger }): EmailActivities {
  return {
    /**
     * Sends one queued e-mail unless it already went out (idempotent per sent-log row: a retry that finds the
     * row `sent` sends nothing). Every attempt carries the row's fixed Message-ID. A 5xx answer fails for good
     * (`EmailRefused`); anything else (4xx, no connection, a timeout) is thrown for the workflow's retry.
     * Residual window: a crash after the server accepted and before `sent` is committed sends it again on the
     * next attempt, under the same Message-ID (docs/decisions/email.md).
     */
    async sendEmail(input: EmailDeliveryInput): Promise<'sent' | 'already_sent' | 'already_failed'> {
      const tenant = tenantOf(input);
      const claim = await claimEmailForSending(sequelize, tenant, input.emailId, EMAIL_SEND_LEASE_MS);
      switch (claim.state) {
        case 'sent':
          return 'already_sent';
        case 'failed':
          return 'already_failed';
        case 'missing':
          throw ApplicationFailure.nonRetryable(`e-mail ${input.emailId} is not in the sent-log`, EMAIL_REFUSED);
        case 'busy':
          throw ApplicationFailure.retryable(`an earlier attempt at e-mail ${input.emailId} may still be sending`, 'EmailBusy');
      }
      const { email } = claim;
      if (email.body === null) throw ApplicationFailure.nonRetryable(`e-mail ${input.emailId} has no body`, EMAIL_REFUSED);
      const parts = JSON.parse(box.open(email.body)) as { html: string; text: string };
      try {
        await mailer.send({ to: email.toAddress, subject: email.subject, html: parts.html, text: parts.text, messageId: email.messageId });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const permanent = isPermanentSmtpFailure(err);
        recordMetric.emailAttempt(permanent ? 'refused' : 'failed');
        await recordEmailAttemptFailure(sequelize, tenant, input.emailId, message);
        logger.warn({ emailId: input.emailId, error: message }, 'e-mail attempt failed');
        if (permanent) throw ApplicationFailure.nonRetryable(message, EMAIL_REFUSED);
        throw err;
      }
      recordMetric.emailAttempt('sent');
      await markEmailSent(sequelize, tenant, input.emailId);
      return 'sent';
    },

    /** The workflow gave up (refused, or still failing after a day): the row ends `failed`. */
    async markEmailGivenUp(input: EmailDeliveryInput & { error: string }): Promise<void> {
      await markEmailFailed(sequelize, tenantOf(input), input.emailId, input.error);
      recordMetric.emailGivenUp();
    },
  };
}
