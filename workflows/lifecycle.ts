import { patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { ACCOUNT_ID, LIFECYCLE_STATE } from './messages';

/** Marks the runs that keep `LifecycleState`; histories recorded before it replay without the upserts. */
const LIFECYCLE_PATCH = 'lifecycle-state';

/**
 * The setter of this run's `LifecycleState` search attribute (ARCHITECTURE.md, "Lifecycle state"), taking the
 * state names of the workflow's area (domain/<area>/states.ts). Called once, first thing in the workflow, so the
 * patch is decided at the same point of every replay. A run started without `AccountId` (the time-skipping test
 * server, which registers no custom search attributes) keeps none, as it carries no `AccountId` either.
 * Upserting an unchanged state is skipped: each upsert is a command in the history.
 */
export function lifecycleState<S extends string>(): (state: S) => void {
  const tracked = workflowInfo().typedSearchAttributes.get(ACCOUNT_ID) !== undefined && patched(LIFECYCLE_PATCH);
  let current: S | undefined;
  return (state) => {
    if (!tracked || state === current) return;
    current = state;
    upsertSearchAttributes([{ key: LIFECYCLE_STATE, value: state }]);
  };
}
