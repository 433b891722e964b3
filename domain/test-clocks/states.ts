/**
 * A test clock workflow's `LifecycleState`, importing nothing that runs (the workflow bundle reads it):
 * `advancing` while its subscriptions catch up, `ready` once the advance is played.
 */
export const TEST_CLOCK_STATES = ['advancing', 'ready'] as const;

export type TestClockState = (typeof TEST_CLOCK_STATES)[number];
