import { Op } from 'sequelize';
import { Subscription, TestClock } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';

/**
 * The clock workflow's reads and writes (workflows/test-clock.ts): which advance to play and for whom, whether
 * a subscription has ended, and the end of the advance.
 */
export function createTestClockAdvance() {
  return {
    /** The advance in progress: the clock's new time and its subscriptions still running; null when none is. */
    async begin(tenant: Tenant, clockId: string): Promise<{ frozenTime: number; subscriptionIds: string[] } | null> {
      const clock = await TestClock.findOne({ where: { id: clockId, ...tenantWhere(tenant) } });
      if (!clock || clock.deletedAt !== null || clock.status !== 'advancing') return null;
      const subscriptions = await Subscription.findAll({
        where: { ...tenantWhere(tenant), testClockId: clockId, status: { [Op.ne]: 'canceled' } },
        attributes: ['id'],
        order: [['id', 'ASC']],
      });
      return { frozenTime: clock.frozenTime.getTime(), subscriptionIds: subscriptions.map((s) => s.id) };
    },

    /** The subscription has ended (canceled): its workflow is gone and has nothing left to play. */
    async isSubscriptionClosed(tenant: Tenant, subscriptionId: string): Promise<boolean> {
      const subscription = await Subscription.findOne({ where: { id: subscriptionId, ...tenantWhere(tenant) }, attributes: ['status'] });
      return !subscription || subscription.status === 'canceled';
    },

    /** Every subscription caught up with `frozenTime`: the clock is `ready` again (unless it moved on or was deleted meanwhile). */
    async finish(tenant: Tenant, clockId: string, frozenTime: number): Promise<void> {
      await TestClock.update(
        { status: 'ready' },
        { where: { id: clockId, ...tenantWhere(tenant), status: 'advancing', frozenTime: new Date(frozenTime), deletedAt: null } },
      );
    },
  };
}
