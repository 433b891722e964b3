import { Op, type Transaction } from 'sequelize';
import { Subscription, TestClock } from '../../db/models';
import { listPage, type PageRequest } from '../../db/pagination';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { invalidState, notFound, validationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AuthContext } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import { cancelSubscription } from '../subscriptions';
import { signalSubscription } from '../workflow-starts';
import { recordStart, startRecordedNow } from '../workflow-starts';
import { toTestClockDto, type TestClockDto } from './dto';
import type { AdvanceTestClockBody, CreateTestClockBody } from './inputs';

/** Test clocks exist only in the test environment: to a live key every clock route is a 404 (ARCHITECTURE.md). */
function testTenant(auth: AuthContext): Tenant {
  if (auth.environment !== 'test') throw notFound('Test clock');
  return tenantWhere(auth);
}

/**
 * Test clocks (ARCHITECTURE.md, docs/decisions/billing.md "Test clocks"). Advancing commits the new
 * `frozenTime` with status `advancing` and durably starts (or signals) the clock's `test-clock:clock_…`
 * workflow, which plays the advance through every subscription of the clock and sets it `ready` again.
 */
export function createTestClockService(deps: Pick<ServiceDeps, 'sequelize' | 'starters' | 'logger' | 'config'>) {
  const { sequelize } = deps;

  async function locked(tx: Transaction, tenant: Tenant, id: string): Promise<TestClock> {
    const clock = await TestClock.findOne({ where: { id, ...tenant, deletedAt: null }, lock: tx.LOCK.UPDATE, transaction: tx });
    if (!clock) throw notFound('Test clock');
    return clock;
  }

  return {
    async create(auth: AuthContext, input: CreateTestClockBody): Promise<TestClockDto> {
      const clock = await TestClock.create({ id: newId('clock'), ...testTenant(auth), name: input.name ?? null, frozenTime: new Date(input.frozenTime) });
      return toTestClockDto(clock);
    },

    list(auth: AuthContext, query: PageRequest) {
      return listPage(sequelize, TestClock, { tenant: testTenant(auth), where: { deletedAt: null }, page: query, idPrefix: 'clock', toDto: toTestClockDto });
    },

    async retrieve(auth: AuthContext, id: string): Promise<TestClockDto> {
      const clock = await TestClock.findOne({ where: { id, ...testTenant(auth), deletedAt: null } });
      if (!clock) throw notFound('Test clock');
      return toTestClockDto(clock);
    },

    /**
     * Deletes the clock and cancels every subscription on it at once, at the clock's time (`subscription.canceled`
     * for each; what they were collecting is voided). Its customers stay, on a clock that no longer moves.
     */
    async remove(auth: AuthContext, id: string): Promise<{ id: string; accountId: string; deleted: true }> {
      const tenant = testTenant(auth);
      const signals = await sequelize.transaction(async (tx) => {
        const clock = await locked(tx, tenant, id);
        const subscriptions = await Subscription.findAll({
          where: { ...tenant, testClockId: clock.id, status: { [Op.ne]: 'canceled' } },
          order: [['id', 'ASC']],
          lock: tx.LOCK.UPDATE,
          transaction: tx,
        });
        const signals: string[] = [];
        for (const subscription of subscriptions) {
          await cancelSubscription(tx, tenant, subscription, clock.frozenTime, deps.config);
          signals.push(await signalSubscription(tx, tenant, subscription.id));
        }
        await clock.update({ deletedAt: new Date() }, { transaction: tx });
        return signals;
      });
      for (const workflowId of signals) await startRecordedNow(deps, workflowId);
      return { id, accountId: auth.accountId, deleted: true };
    },

    /** Refused while an advance is still playing (`409 INVALID_STATE`) and for a time not after the clock's (`400`). */
    async advance(auth: AuthContext, id: string, input: AdvanceTestClockBody): Promise<TestClockDto> {
      const tenant = testTenant(auth);
      const { clock, workflowId } = await sequelize.transaction(async (tx) => {
        const clock = await locked(tx, tenant, id);
        if (clock.status === 'advancing') throw invalidState('This test clock is still advancing; retry once it is ready');
        const frozenTime = new Date(input.frozenTime);
        if (frozenTime <= clock.frozenTime) {
          throw validationError(`frozenTime: must be later than the clock's ${clock.frozenTime.toISOString()}`, [{ field: 'frozenTime', message: 'not later than the current frozenTime' }]);
        }
        await clock.update({ frozenTime, status: 'advancing' }, { transaction: tx });
        const workflowId = await recordStart(tx, tenant, { workflowType: 'testClockAdvance', input: { ...tenant, clockId: clock.id } });
        return { clock, workflowId };
      });
      await startRecordedNow(deps, workflowId);
      return toTestClockDto(clock);
    },
  };
}

export type TestClockService = ReturnType<typeof createTestClockService>;
