import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { EmailActivities } from '../activities/contracts/email';
import type { EmailDeliveryState } from '../domain/email/states';
import { EMAIL_SEND_ATTEMPT_MS, EMAIL_SEND_FIRST_RETRY_MS } from './email-timing';
import { lifecycleState } from './lifecycle';
import type { EmailDeliveryInput, EmailDeliveryOutcome } from './messages';

/**
 * Temporal owns the retries: 1 minute, doubling, at most an hour apart, for a day in all; a 5xx refusal
 * (`EmailRefused`) is not retried. The start-to-close timeout sits above the mailer's own timeouts.
 */
const { sendEmail } = proxyActivities<EmailActivities>({
  startToCloseTimeout: EMAIL_SEND_ATTEMPT_MS,
  scheduleToCloseTimeout: '24 hours',
  retry: { initialInterval: EMAIL_SEND_FIRST_RETRY_MS, backoffCoefficient: 2, maximumInterval: '1 hour', nonRetryableErrorTypes: ['EmailRefused'] },
});

// Only a database write: retried until it lands.
const { markEmailGivenUp } = proxyActivities<EmailActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes' },
});

/** `email-delivery:<eml>`: sends one buyer e-mail from its sent-log row, or marks it failed. */
export async function emailDelivery(input: EmailDeliveryInput): Promise<EmailDeliveryOutcome> {
  const lifecycle = lifecycleState<EmailDeliveryState>();
  lifecycle('sending');
  try {
    const result = await sendEmail(input);
    const outcome = result === 'already_failed' ? 'failed' : 'sent';
    lifecycle(outcome);
    return outcome;
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    await markEmailGivenUp({ ...input, error: (err.cause ?? err).message });
    lifecycle('failed');
    return 'failed';
  }
}
