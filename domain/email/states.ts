/**
 * A buyer e-mail's delivery as its workflow's `LifecycleState` names it, importing nothing that runs (the
 * workflow bundle reads it): `sending` (the send and Temporal's retries of it, for up to a day), then `sent` or
 * `failed` (refused for good, or given up).
 */
export const EMAIL_DELIVERY_STATES = ['sending', 'sent', 'failed'] as const;

export type EmailDeliveryState = (typeof EMAIL_DELIVERY_STATES)[number];
