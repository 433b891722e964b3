import { ApplicationFailure } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import { claimEmailForSending, markEmailFailed, markEmailSent, recordEmailAttemptFailure } from '../db/email-messages';
import type { Tenant } from '../db/tenancy';
import type { CryptoBox } from '../lib/crypto-box';
import { isPermanentSmtpFailure, type Mailer } from '../lib/email';
import type { Logger } from '../lib/logger';
import { recordMetric } from '../lib/metrics';
import { EMAIL_SEND_LEASE_MS } from '../workflows/email-timing';
import type { EmailDeliveryInput } from '../workflows/messages';
import type { EmailActivities } from './contracts/email';

/** Error types the email-delivery workflow does not retry. */
export const EMAIL_REFUSED = 'EmailRefused';

const tenantOf = (input: EmailDeliveryInput): Tenant => ({ accountId: input.accountId, environment: input.environment });

export interface EmailSenderDeps {
  sequelize: Sequelize;
  box: CryptoBox;
  mailer: Mailer;
  logger: Logger;
}

/**
 * One attempt at one queued e-mail, unless it already went out (idempotent per sent-log row: an attempt that finds
 * the row `sent` sends nothing). Every attempt carries the row's fixed Message-ID. A 5xx answer fails for good
 * (`EmailRefused`); anything else (4xx, no connection, a timeout, a lease still held) is thrown to be tried again.
 * Residual window: a crash after the server accepted and before `sent` is committed sends it again on the next
 * attempt, under the same Message-ID (docs/decisions/email.md). Shared by the email-delivery workflow's activity and
 * the checkout-session workflow's receipt.
 */
export function createEmailSender({ sequelize, box, mailer, logger }: EmailSenderDeps) {
  return async function sendQueuedEmail(tenant: Tenant, emailId: string): Promise<'sent' | 'already_sent' | 'already_failed'> {
    const claim = await claimEmailForSending(sequelize, tenant, emailId, EMAIL_SEND_LEASE_MS);
    switch (claim.state) {
      case 'sent':
        return 'already_sent';
      case 'failed':
        return 'already_failed';
      case 'missing':
        throw ApplicationFailure.nonRetryable(`e-mail ${emailId} is not in the sent-log`, EMAIL_REFUSED);
      case 'busy':
        throw ApplicationFailure.retryable(`an earlier attempt at e-mail ${emailId} may still be sending`, 'EmailBusy');
    }
    const { email } = claim;
    if (email.body === null) throw ApplicationFailure.nonRetryable(`e-mail ${emailId} has no body`, EMAIL_REFUSED);
    const parts = JSON.parse(box.open(email.body)) as { html: string; text: string };
    try {
      await mailer.send({ to: email.toAddress, subject: email.subject, html: parts.html, text: parts.text, messageId: email.messageId });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const permanent = isPermanentSmtpFailure(err);
      recordMetric.emailAttempt(permanent ? 'refused' : 'failed');
      await recordEmailAttemptFailure(sequelize, tenant, emailId, message);
      logger.warn({ emailId, error: message }, 'e-mail attempt failed');
      if (permanent) throw ApplicationFailure.nonRetryable(message, EMAIL_REFUSED);
      throw err;
    }
    recordMetric.emailAttempt('sent');
    await markEmailSent(sequelize, tenant, emailId);
    return 'sent';
  };
}

/** Gives up on a queued e-mail (refused, or still failing after a day): the row ends `failed`. */
export async function giveUpEmail(sequelize: Sequelize, tenant: Tenant, emailId: string, error: string): Promise<void> {
  await markEmailFailed(sequelize, tenant, emailId, error);
  recordMetric.emailGivenUp();
}

export function createEmailActivities(deps: EmailSenderDeps): EmailActivities {
  const sendQueuedEmail = createEmailSender(deps);
  return {
    /** One attempt (createEmailSender); Temporal retries the rest. */
    async sendEmail(input: EmailDeliveryInput): Promise<'sent' | 'already_sent' | 'already_failed'> {
      return sendQueuedEmail(tenantOf(input), input.emailId);
    },

    /** The workflow gave up (refused, or still failing after a day): the row ends `failed`. */
    async markEmailGivenUp(input: EmailDeliveryInput & { error: string }): Promise<void> {
      await giveUpEmail(deps.sequelize, tenantOf(input), input.emailId, input.error);
    },
  };
}
