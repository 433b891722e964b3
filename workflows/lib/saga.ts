/**
 * Sagas for workflows: undo the steps that succeeded when a later one fails or the workflow is cancelled.
 *
 *   await runSaga(async (saga) => {
 *     const hold = await saga.step(() => reserveStock(order), (held) => releaseStock(held));
 *     await saga.step(() => chargeCard(order, hold), (charge) => refundCharge(charge));
 *     await confirmOrder(order);
 *   });
 *
 * - `step(action, compensation)` runs the action and registers its compensation, with the action's result,
 *   only once the action succeeded. When the action's effect can outlive its failure (an activity that timed
 *   out after committing), register with `addCompensation` before it, and let the compensation find nothing
 *   to undo.
 * - When the body throws a TemporalFailure (a step's activity failure, an ApplicationFailure, the workflow's
 *   cancellation), the compensations registered so far run one at a time, newest first, inside
 *   `CancellationScope.nonCancellable`, so a cancelled workflow still undoes everything. Any other error is a
 *   bug: it fails the workflow task, which Temporal retries until fixed code continues the workflow, so
 *   nothing may be undone under it. The same rule holds for errors of the compensations themselves.
 * - A compensation that fails does not stop the others. If all succeed, the original error is rethrown
 *   unchanged (a cancelled workflow ends cancelled). If any failed, a non-retryable `SagaCompensationFailed`
 *   ApplicationFailure is thrown instead, caused by the original error, with the compensations' failure
 *   messages as details: the workflow fails rather than hide a half-undone state, even when it was cancelled.
 * - Compensations should be activities that retry until they land (no `maximumAttempts`), so that a failed
 *   one means state to repair by hand.
 */
import { ApplicationFailure, CancellationScope, rootCause, TemporalFailure } from '@temporalio/workflow';

export const SAGA_COMPENSATION_FAILED = 'SagaCompensationFailed';

type Compensation = () => Promise<unknown>;

export interface Saga {
  step<T>(action: () => Promise<T>, compensation: (result: T) => Promise<unknown>): Promise<T>;
  addCompensation(compensation: Compensation): void;
}

/** Runs `body` as a saga (see the header) and returns its result. */
export async function runSaga<T>(body: (saga: Saga) => Promise<T>): Promise<T> {
  const compensations: Compensation[] = [];
  const saga: Saga = {
    async step(action, compensation) {
      const result = await action();
      compensations.push(() => compensation(result));
      return result;
    },
    addCompensation(compensation) {
      compensations.push(compensation);
    },
  };
  try {
    return await body(saga);
  } catch (err) {
    if (!(err instanceof TemporalFailure)) throw err;
    const failures = await CancellationScope.nonCancellable(() => compensateNewestFirst(compensations));
    if (failures.length === 0) throw err;
    throw ApplicationFailure.create({
      type: SAGA_COMPENSATION_FAILED,
      message: `${failures.length} of ${compensations.length} compensations failed after: ${rootCause(err) ?? err.message}`,
      nonRetryable: true,
      cause: err,
      details: failures,
    });
  }
}

/** Runs every compensation, newest first; returns the root-cause messages of those that failed. */
async function compensateNewestFirst(compensations: readonly Compensation[]): Promise<string[]> {
  const failures: string[] = [];
  for (const compensation of [...compensations].reverse()) {
    try {
      await compensation();
    } catch (err) {
      if (!(err instanceof TemporalFailure)) throw err;
      failures.push(rootCause(err) ?? err.message);
    }
  }
  return failures;
}
