import { ActivityFailure, ApplicationFailure, CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { SAGA_COMPENSATION_FAILED } from '../../workflows/lib/saga';
import { useTimeSkippingWorker } from '../helpers/time-skipping';
import { waitFor } from '../helpers/wait';
import { holdSteps, type SagaActivities, type SagaPlan } from './fixtures/saga-workflows';

/** Every activity call, in the order the worker ran them. */
const calls: string[] = [];

const activities: SagaActivities = {
  async hold(step, fail) {
    calls.push(`hold ${step}`);
    if (fail) throw ApplicationFailure.nonRetryable(`step ${step} failed`, 'StepFailed');
    return `hold-${step}`;
  },
  async release(hold, fail) {
    calls.push(`release ${hold}`);
    if (fail) throw ApplicationFailure.nonRetryable(`release of ${hold} failed`, 'ReleaseFailed');
  },
};

let workflows = 0;
const workflowId = () => `saga-${++workflows}`;

beforeEach(() => {
  calls.length = 0;
});

describe('runSaga (time-skipping Temporal, real activities)', () => {
  const ts = useTimeSkippingWorker({ workflowsPath: require.resolve('./fixtures/saga-workflows'), activities });

  const execute = (plan: SagaPlan) =>
    ts.run((env, taskQueue) => env.client.workflow.execute(holdSteps, { taskQueue, workflowId: workflowId(), args: [plan] }));

  it('runs every step and no compensation when all succeed', async () => {
    expect(await execute({ steps: 3 })).toEqual(['hold-1', 'hold-2', 'hold-3']);
    expect(calls).toEqual(['hold 1', 'hold 2', 'hold 3']);
  });

  it('when step 3 fails, compensates 2 then 1 and fails with the step’s error', async () => {
    const failure = await execute({ steps: 4, failStep: 3 }).catch((err: unknown) => err);

    expect(calls).toEqual(['hold 1', 'hold 2', 'hold 3', 'release hold-2', 'release hold-1']);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ActivityFailure);
    expect(cause?.cause).toMatchObject({ type: 'StepFailed', message: 'step 3 failed' });
  });

  it('runs the remaining compensations after one fails, then fails naming it, caused by the step’s error', async () => {
    const failure = await execute({ steps: 4, failStep: 4, failRelease: 2 }).catch((err: unknown) => err);

    expect(calls).toEqual(['hold 1', 'hold 2', 'hold 3', 'hold 4', 'release hold-3', 'release hold-2', 'release hold-1']);
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause).toMatchObject({
      type: SAGA_COMPENSATION_FAILED,
      nonRetryable: true,
      message: '1 of 3 compensations failed after: step 4 failed',
      details: ['release of hold-2 failed'],
    });
    const stepFailure = cause?.cause as ActivityFailure;
    expect(stepFailure).toBeInstanceOf(ActivityFailure);
    expect(stepFailure.cause).toMatchObject({ type: 'StepFailed', message: 'step 4 failed' });
  });

  it('compensates newest first when the workflow is cancelled while step 3 waits, and ends cancelled', async () => {
    const failure = await ts.run(async (env, taskQueue) => {
      const handle = await env.client.workflow.start(holdSteps, { taskQueue, workflowId: workflowId(), args: [{ steps: 3, waitStep: 3 }] });
      await waitFor(async () => (await handle.fetchHistory()).events?.some((e) => e.timerStartedEventAttributes) ?? false);
      await handle.cancel();
      const result = await handle.result().catch((err: unknown) => err);
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      return result;
    });

    expect(calls).toEqual(['hold 1', 'hold 2', 'release hold-2', 'release hold-1']);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  });
});
