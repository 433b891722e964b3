/**
 * A checkout session's life as its workflow's `LifecycleState` names it, importing nothing that runs (the
 * workflow bundle reads it): `awaiting_payment` (open, until paid or expired), `pending_review` (paid in local
 * mode, waiting for the merchant's confirm), `fulfilling` (completed, fulfillment steps running), then
 * `completed` (fulfilled) or `expired`.
 */
export const CHECKOUT_SESSION_STATES = ['awaiting_payment', 'pending_review', 'fulfilling', 'completed', 'expired'] as const;

export type CheckoutSessionState = (typeof CHECKOUT_SESSION_STATES)[number];
