import type { EmailDeliveryInput } from '../../workflows/messages';

/** The email-delivery workflow's activities (activities/email.ts). */
export type EmailActivities = {
  sendEmail(input: EmailDeliveryInput): Promise<'sent' | 'already_sent' | 'already_failed'>;
  markEmailGivenUp(input: EmailDeliveryInput & { error: string }): Promise<void>;
};
