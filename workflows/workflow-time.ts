/**
 * Now, in a workflow: the workflow task's time, not the machine's. The SDK's sandbox replaces `Date` so that it
 * reads the time the current workflow task started and replays the same value (and the time-skipping test server
 * moves it), which makes it the one deterministic clock a workflow has: durations for timers, the time a step is
 * judged at. Every workflow reads it here, so the reason stands in one place.
 */
export function workflowNow(): number {
  // eslint-disable-next-line no-restricted-properties -- the sandbox's deterministic workflow time, as above
  return Date.now();
}
