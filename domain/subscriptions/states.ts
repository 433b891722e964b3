import type { SubscriptionPhase, SubscriptionStepResult, SubscriptionTimedStep } from '../../workflows/messages';

/**
 * The subscription's state table (document 2, States: Subscription) read as phases, importing nothing that runs:
 * the lifecycle's steps (lifecycle.ts) and the subscription workflow, whose bundle must stay deterministic, both
 * read it here.
 */

/**
 * The order of timed steps due at the same moment: a charge is judged before a retry, and both before the period
 * they belong to ends.
 */
export const TIMED_STEP_RANK: Record<SubscriptionTimedStep, number> = { charge_due: 0, dunning_retry: 1, final_action: 1, period_end: 2 };

/**
 * The phase a step left the subscription in, named by what ends it:
 *
 * - `trial`: the trial's end, with the first period's charge;
 * - `renewal_charge`: a period's invoice is open (the first one's, or a renewal's) until it is paid or falls due
 *   unpaid, which begins dunning;
 * - `active_period`: the period's end, which renews it with a charge (or, once canceled at the period end, ends it);
 * - `dunning_retries`: the next retry (T+1d, T+3d, T+7d after the failed charge) or a payment; after the last, the
 *   workspace's final action;
 * - `unpaid`: left unpaid by the final action, renewals skipped, until a payment makes it active again;
 * - `paused`: renewals skipped until it is resumed;
 * - `canceled`: the end, at once, at the period end, or by dunning's final action.
 */
export function subscriptionPhase(result: Pick<SubscriptionStepResult, 'status' | 'next'>): SubscriptionPhase {
  switch (result.status) {
    case 'trialing':
      return 'trial';
    case 'active':
      return result.next === 'charge_due' ? 'renewal_charge' : 'active_period';
    case 'past_due':
      return 'dunning_retries';
    case 'unpaid':
      return result.next === 'final_action' ? 'dunning_retries' : 'unpaid';
    case 'paused':
      return 'paused';
    case 'canceled':
      return 'canceled';
  }
}

/**
 * A subscription workflow's `LifecycleState`: the subscription's status (document 2: `trialing`, `active`,
 * `past_due`, `paused`, `unpaid`, `canceled`) as the workflow rests in it, so an operator finds every
 * subscription in dunning with `LifecycleState = "past_due"`.
 */
export type SubscriptionLifecycleState = SubscriptionStepResult['status'];
