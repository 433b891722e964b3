/**
 * A webhook delivery's life as its workflow's `LifecycleState` names it, importing nothing that runs (the
 * workflow bundle reads it): `delivering` (an attempt in flight), `retrying` (waiting for the next attempt),
 * then `delivered` (a 2xx), `failed` (every attempt failed, dropped) or `stopped` (the endpoint was deleted or
 * disabled, or the delivery canceled).
 */
export const WEBHOOK_DELIVERY_STATES = ['delivering', 'retrying', 'delivered', 'failed', 'stopped'] as const;

export type WebhookDeliveryState = (typeof WEBHOOK_DELIVERY_STATES)[number];
