import type { Transaction } from 'sequelize';
import { TestClock } from '../db/models';
import { invalidState } from '../lib/errors';

/**
 * The time of what lives on a customer's test clock (its subscriptions and their invoices): the clock's
 * `frozenTime` (ARCHITECTURE.md, "Test clocks"), or `realNow`. A request (`forRequest`) on a clock that is advancing
 * is refused: the clock's workflow is moving the subscription through time and the request would land at a moment
 * it has not reached yet; so is one on a deleted clock (whose subscriptions were canceled with it, and whose time
 * no longer moves).
 */
export async function clockNow(tx: Transaction, testClockId: string | null, realNow: Date, { forRequest = false } = {}): Promise<Date> {
  if (testClockId === null) return realNow;
  // Shared lock: an advance (which takes the row for update) waits until this transaction ends.
  const clock = await TestClock.findByPk(testClockId, { lock: forRequest ? tx.LOCK.SHARE : undefined, transaction: tx });
  if (!clock) throw new Error(`test clock ${testClockId} is missing`);
  if (forRequest && clock.deletedAt !== null) throw invalidState('The customer’s test clock was deleted; its time no longer moves');
  if (forRequest && clock.status === 'advancing') throw invalidState('The subscription’s test clock is advancing; retry once it is ready');
  return clock.frozenTime;
}
