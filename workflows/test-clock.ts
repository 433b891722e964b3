import { condition, getExternalWorkflowHandle, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { TestClockActivities } from '../activities/contracts/subscriptions';
import type { TestClockState } from '../domain/test-clocks/states';
import { lifecycleState } from './lifecycle';
import { subscriptionClockAdvanced, testClockAdvanceRequested, testClockSubscriptionCaughtUp, workflowIds, type TestClockInput } from './messages';

const steps = proxyActivities<TestClockActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** How long a subscription whose workflow is not running yet (its start still in the outbox) is waited for, per try. */
const NOT_STARTED_RETRY = '1 second';
const NOT_STARTED_TRIES = 120;

/**
 * `test-clock:clock_…`: plays one advance of a test clock. Started (or signalled) by the advance request, which
 * committed the clock as `advancing` with its new `frozenTime`; tells every subscription of the clock to catch
 * up, waits until each has acknowledged that every step due up to that time has run (or has ended), and only
 * then sets the clock back to `ready`. An advance accepted while this run is finishing is played by the same run.
 */
export async function testClock(input: TestClockInput): Promise<void> {
  const lifecycle = lifecycleState<TestClockState>();
  let requested = false;
  const caughtUp = new Map<string, number>();
  setHandler(testClockAdvanceRequested, () => {
    requested = true;
  });
  setHandler(testClockSubscriptionCaughtUp, ({ subscriptionId, clockTime }) => {
    caughtUp.set(subscriptionId, Math.max(caughtUp.get(subscriptionId) ?? 0, clockTime));
  });

  const clock = { accountId: input.accountId, environment: input.environment, clockId: input.clockId };
  const isCaughtUp = (subscriptionId: string, frozenTime: number) => (caughtUp.get(subscriptionId) ?? -Infinity) >= frozenTime;

  /** Signals one subscription; one whose workflow has ended counts as caught up, one not started yet is tried again. */
  async function tell(subscriptionId: string, frozenTime: number): Promise<void> {
    for (let attempt = 1; !isCaughtUp(subscriptionId, frozenTime); attempt += 1) {
      try {
        await getExternalWorkflowHandle(workflowIds.subscription(subscriptionId)).signal(subscriptionClockAdvanced);
        return;
      } catch {
        if ((await steps.isSubscriptionClosed({ ...clock, subscriptionId })) || attempt >= NOT_STARTED_TRIES) {
          caughtUp.set(subscriptionId, Infinity);
          return;
        }
        await sleep(NOT_STARTED_RETRY);
      }
    }
  }

  // Started by signal-with-start, so the first request is already in.
  await condition(() => requested);
  while (requested) {
    requested = false;
    const advance = await steps.beginTestClockAdvance(clock);
    if (advance === null) continue;
    const { frozenTime, subscriptionIds } = advance;
    lifecycle('advancing');
    await Promise.all(subscriptionIds.map((id) => tell(id, frozenTime)));
    await condition(() => subscriptionIds.every((id) => isCaughtUp(id, frozenTime)));
    await steps.finishTestClockAdvance({ ...clock, frozenTime });
    lifecycle('ready');
  }
}
