/**
 * The activity types histories recorded before the code took the spec's spelling, `fulfillment`
 * (docs/decisions/vocabulary.md). A run that scheduled one of them replays only if it schedules the same type again,
 * so a run that began its fulfillment before the rename keeps calling these (`patched(SPEC_SPELLING_PATCH)` is false
 * for it), and the worker registers each activity under both names until such runs have drained. This file keeps
 * the old spelling on purpose: the spelling codemod and the spelling guard test leave it alone.
 */
export const SPEC_SPELLING_PATCH = 'activity-types-spec-spelling';

/** Today's activity name → the type recorded before the rename. */
export const LEGACY_ACTIVITY_TYPES = {
  planCheckoutFulfillment: 'planCheckoutFulfilment',
  runCheckoutFulfillmentStep: 'runCheckoutFulfilmentStep',
  planManualOrderFulfillment: 'planManualOrderFulfilment',
  runManualOrderFulfillmentStep: 'runManualOrderFulfilmentStep',
} as const;

export type RenamedActivity = keyof typeof LEGACY_ACTIVITY_TYPES;

/**
 * Activity `name` of a proxy from `proxyActivities`, scheduled under its legacy type when `legacy`: the proxy
 * schedules whatever type it is asked for, and the worker answers both.
 */
export function activityOf<A, K extends RenamedActivity & keyof A>(proxy: A, name: K, legacy: boolean): A[K] {
  return legacy ? (proxy as unknown as Record<string, A[K]>)[LEGACY_ACTIVITY_TYPES[name]]! : proxy[name];
}

/** The worker's activities, each renamed one also under its legacy type. */
export function withLegacyActivityTypes<T extends object>(activities: T): T {
  const aliases: Record<string, unknown> = {};
  for (const [name, legacy] of Object.entries(LEGACY_ACTIVITY_TYPES)) if (name in activities) aliases[legacy] = (activities as Record<string, unknown>)[name];
  return { ...activities, ...aliases };
}
