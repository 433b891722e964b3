import type { AttemptInput, AttemptResult } from '../../workflows/messages';

/** The webhook-delivery workflow's activity (activities/webhooks.ts). */
export type WebhookActivities = {
  deliverWebhookAttempt(input: AttemptInput): Promise<AttemptResult>;
};
