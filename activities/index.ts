import { createAiGenerationActivities } from './ai-generation';
import { createCheckoutActivities } from './checkout';
import { createEmailActivities } from './email';
import { createFileActivities } from './files';
import { createMaintenanceActivities } from './maintenance';
import { createManualOrderActivities } from './manual-orders';
import { createPayoutActivities } from './payouts';
import { createSubscriptionActivities } from './subscriptions';
import { createShippingActivities } from './shipping';
import { createWebhookActivities } from './webhooks';
import type { ActivityDeps } from './deps';
import { withLegacyActivityTypes } from '../workflows/legacy-activity-types';

export type { ActivityDeps } from './deps';

type Activity = (...args: never[]) => Promise<unknown>;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/**
 * Merges per-area activity sets into one. Temporal registers activities by name, so two areas defining the
 * same name would silently shadow each other: that is refused when the worker starts.
 */
export function combineActivities<T extends Record<string, Activity>[]>(...sets: T): UnionToIntersection<T[number]> {
  const all: Record<string, Activity> = {};
  for (const set of sets) {
    for (const [name, fn] of Object.entries(set)) {
      if (name in all) throw new Error(`two activities are named "${name}"; activity names must be unique across areas`);
      all[name] = fn;
    }
  }
  return all as UnionToIntersection<T[number]>;
}

/**
 * Every activity, built from real dependencies handed in by the worker (or by a test); the ones renamed to the
 * spec's spelling also under the type older runs recorded (docs/decisions/vocabulary.md).
 */
export function createActivities(deps: ActivityDeps) {
  const all = combineActivities(
    createMaintenanceActivities(deps),
    createFileActivities(deps),
    createAiGenerationActivities(deps),
    createWebhookActivities(deps),
    createEmailActivities(deps),
    createCheckoutActivities(deps),
    createManualOrderActivities(deps),
    createPayoutActivities(deps),
    createSubscriptionActivities(deps),
    createShippingActivities(deps),
  );
  return withLegacyActivityTypes(all);
}
