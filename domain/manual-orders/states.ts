/**
 * A confirmed manual order's fulfillment as its workflow's `LifecycleState` names it, importing nothing that
 * runs (the workflow bundle reads it): `fulfilling` until every step has landed, then `completed`.
 */
export const MANUAL_ORDER_STATES = ['fulfilling', 'completed'] as const;

export type ManualOrderState = (typeof MANUAL_ORDER_STATES)[number];
