import { Op, type Sequelize, type Transaction } from 'sequelize';
import { Account, BillingPlan, Customer, Invoice, Subscription, SubscriptionCharge, TestClock } from '../../db/models';
import { emit } from '../../db/outbox';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import type { Config } from '../../lib/config';
import type { CryptoBox } from '../../lib/crypto-box';
import type { SubscriptionStepResult, SubscriptionTimedStep } from '../../workflows/messages';
import { hostedCheckoutUrl } from '../checkout';
import { createEmailQueue } from '../email';
import { cancelSubscription, periodLine, prepareSubscriptionInvoice } from './billing';
import { subscriptionChargeBackendFor, type ChargeBackendConfig } from './charge-backend';
import { toSubscriptionDto } from './dto';
import { dayOf, periodOf } from './periods';
import { TIMED_STEP_RANK } from './states';

export interface LifecycleDeps {
  sequelize: Sequelize;
  config: ChargeBackendConfig & Pick<Config, 'EMAIL_FROM'>;
  box: CryptoBox;
}

type Due = { at: Date; step: SubscriptionTimedStep; apply: () => Promise<Applied> };
/** A step applied; `issue` writes the numbered invoice it prepared, last in the transaction. */
type Applied = { step: string; cycled?: boolean; issue?: () => Promise<unknown> };

/**
 * The subscription's state table (document 2) as steps, each applied in one transaction under the row lock by
 * the `subscription:sub_…` workflow (docs/decisions/billing.md, "Subscriptions"):
 *
 * - a charge whose invoice was paid (or voided) is settled first, whenever it happened;
 * - then the earliest timed step due by "now", stamped with its own time: a charge falling due unpaid
 *   (`past_due`), a dunning retry (T+1d, T+3d, T+7d after the failure; `unpaid` after the last, then the
 *   workspace's final action), and the period end (trial end with the first charge, a renewal charge, a renewal
 *   skipped while `paused` or `unpaid`, or a deferred cancel). At equal times a charge is judged before the
 *   period it belongs to ends.
 *
 * "Now" is the workflow's time, or the test clock's for a subscription on one, so a clock advanced by a month
 * plays every step of that month in order, each at its own moment.
 */
export function createSubscriptionLifecycle({ sequelize, config, box }: LifecycleDeps) {
  const emails = createEmailQueue({ box, config });
  const schedule = config.SUBSCRIPTION_RETRY_SCHEDULE;

  /** E-mails the customer the invoice's payment link (one message per invoice and attempt). */
  async function emailPaymentLink(tx: Transaction, tenant: Tenant, subscription: Subscription, invoice: Invoice, attemptCount: number, nextAttempt: Date | null): Promise<void> {
    const customer = await Customer.findByPk(subscription.customerId, { transaction: tx });
    if (!customer?.email || !invoice.checkoutSessionId) return;
    const plan = await BillingPlan.findByPk(subscription.planId, { attributes: ['name'], transaction: tx });
    await emails.queue(tx, tenant, {
      kind: 'subscription_payment_failed',
      businessKey: `subscription_payment_failed:${invoice.id}:${attemptCount}`,
      to: customer.email,
      data: {
        ...(customer.name ? { buyerName: customer.name.slice(0, 200) } : {}),
        invoiceNumber: invoice.number,
        description: (plan?.name ?? 'Subscription').slice(0, 300),
        currency: invoice.currency as 'IDR',
        amount: invoice.amount,
        payUrl: hostedCheckoutUrl(config.PUBLIC_BASE_URL, invoice.checkoutSessionId),
        ...(nextAttempt ? { nextAttemptOn: dayOf(nextAttempt) } : {}),
      },
    });
  }

  /** A charge was found unpaid (`attemptCount` counts every attempt at this dunning run, the due date's first). */
  async function paymentFailed(tx: Transaction, tenant: Tenant, subscription: Subscription, invoices: Invoice[], attemptCount: number, nextAttempt: Date | null): Promise<void> {
    const [first] = invoices;
    await emit(tx, tenant, 'subscription.payment_failed', {
      ...toSubscriptionDto(subscription),
      invoiceId: first!.id,
      attemptCount,
      nextPaymentAttemptAt: nextAttempt?.toISOString() ?? null,
    });
    for (const invoice of invoices) await emailPaymentLink(tx, tenant, subscription, invoice, attemptCount, nextAttempt);
  }

  /** The invoice of `charge` was paid (or voided): the charge is settled; dunning ends once no failed charge is left. */
  async function settle(tx: Transaction, tenant: Tenant, subscription: Subscription, charge: SubscriptionCharge, invoice: Invoice, at: Date): Promise<Applied> {
    const paid = invoice.status === 'paid';
    await charge.update({ state: paid ? 'paid' : 'void', resolvedAt: at }, { transaction: tx });
    const stillFailed = await SubscriptionCharge.count({ where: { subscriptionId: subscription.id, state: 'failed' }, transaction: tx });
    if (stillFailed === 0) {
      const recovering = subscription.status === 'past_due' || subscription.status === 'unpaid';
      subscription.set({
        ...(recovering ? { status: 'active' as const } : {}),
        failedPaymentCount: 0,
        pastDueSince: null,
        retriesDone: 0,
        nextRetryAt: null,
      });
      await subscription.save({ transaction: tx });
    }
    if (!paid) return { step: 'charge_voided' };
    const data = { ...toSubscriptionDto(subscription), invoiceId: invoice.id, amount: invoice.amount, currency: invoice.currency };
    if (charge.reason === 'subscription_cycle') await emit(tx, tenant, 'subscription.renewed', data);
    await emit(tx, tenant, 'subscription.payment_succeeded', data);
    return { step: 'payment_succeeded' };
  }

  /** The charge's due date passed: paid is a success; unpaid, the subscription goes `past_due` (unless already in dunning). */
  async function chargeDue(tx: Transaction, tenant: Tenant, subscription: Subscription, charge: SubscriptionCharge): Promise<Applied> {
    const at = charge.dueAt;
    const invoice = (await Invoice.findByPk(charge.invoiceId, { transaction: tx }))!;
    const outcome = await subscriptionChargeBackendFor(config, subscription).attempt(tx, tenant, invoice, 1, at);
    if (outcome === 'paid') return settle(tx, tenant, subscription, charge, invoice, at);
    await charge.update({ state: 'failed', resolvedAt: null }, { transaction: tx });
    if (subscription.status === 'past_due' || subscription.status === 'unpaid') return { step: 'charge_failed' };
    subscription.set({ status: 'past_due', pausedAt: null, failedPaymentCount: 1, pastDueSince: at, retriesDone: 0, nextRetryAt: new Date(at.getTime() + schedule[0]!) });
    await subscription.save({ transaction: tx });
    await paymentFailed(tx, tenant, subscription, [invoice], 1, subscription.nextRetryAt);
    await emit(tx, tenant, 'subscription.past_due', { ...toSubscriptionDto(subscription), invoiceId: invoice.id });
    return { step: 'charge_failed' };
  }

  /** A dunning retry: each failed charge is attempted again; still unpaid, one more failed attempt, `unpaid` after the last. */
  async function retry(tx: Transaction, tenant: Tenant, subscription: Subscription): Promise<Applied> {
    const at = subscription.nextRetryAt!;
    const failed = await SubscriptionCharge.findAll({ where: { subscriptionId: subscription.id, state: 'failed' }, order: [['dueAt', 'ASC']], transaction: tx });
    const backend = subscriptionChargeBackendFor(config, subscription);
    const unpaid: Invoice[] = [];
    for (const charge of failed) {
      const invoice = (await Invoice.findByPk(charge.invoiceId, { transaction: tx }))!;
      if ((await backend.attempt(tx, tenant, invoice, subscription.failedPaymentCount + 1, at)) === 'failed') unpaid.push(invoice);
    }
    // Every failed charge is paid now: the next step settles them and ends dunning.
    if (unpaid.length === 0) return { step: 'retry_succeeded' };
    const retriesDone = subscription.retriesDone + 1;
    const last = retriesDone >= schedule.length;
    subscription.set({
      retriesDone,
      failedPaymentCount: subscription.failedPaymentCount + 1,
      ...(last ? { status: 'unpaid' as const, nextRetryAt: at } : { nextRetryAt: new Date(subscription.pastDueSince!.getTime() + schedule[retriesDone]!) }),
    });
    await subscription.save({ transaction: tx });
    // After the last retry no attempt follows: `nextRetryAt` then only schedules the final action, at the same time.
    await paymentFailed(tx, tenant, subscription, unpaid, subscription.failedPaymentCount, last ? null : subscription.nextRetryAt);
    return { step: last ? 'dunning_exhausted' : 'retry_failed' };
  }

  /** After the final retry: the workspace's dunning setting cancels the subscription or leaves it `unpaid`. */
  async function finalAction(tx: Transaction, tenant: Tenant, subscription: Subscription, account: Account): Promise<Applied> {
    const at = subscription.nextRetryAt!;
    if (account.dunningFinalAction === 'cancel') {
      await cancelSubscription(tx, tenant, subscription, at, config);
      return { step: 'canceled_unpaid' };
    }
    await subscription.update({ nextRetryAt: null }, { transaction: tx });
    return { step: 'left_unpaid' };
  }

  /** The current period ended: a deferred cancel, the trial's end, a renewal, or a renewal skipped. */
  async function periodEnded(tx: Transaction, tenant: Tenant, subscription: Subscription): Promise<Applied> {
    const at = subscription.currentPeriodEnd;
    if (subscription.cancelAtPeriodEnd) {
      await cancelSubscription(tx, tenant, subscription, at, config);
      return { step: 'canceled_at_period_end' };
    }
    const plan = (await BillingPlan.findByPk(subscription.planId, { transaction: tx }))!;
    const cycle = subscription.cycle + 1;
    const period = periodOf(subscription.billingAnchor, plan, cycle);
    const billed = subscription.status === 'trialing' || subscription.status === 'active' || subscription.status === 'past_due';
    subscription.set({
      cycle,
      currentPeriodStart: period.start,
      currentPeriodEnd: period.end,
      // Nothing is billed for a skipped period, so a plan switch in it credits nothing.
      currentPeriodAmount: billed ? plan.amount : 0,
      ...(subscription.status === 'trialing' ? { status: 'active' as const } : {}),
    });
    let issue: Applied['issue'];
    if (billed) {
      const reason = cycle === 0 ? 'subscription_create' : 'subscription_cycle';
      const line = periodLine(plan, period.start, period.end);
      ({ issue } = await prepareSubscriptionInvoice(tx, tenant, config, subscription, { reason, lines: [line, ...subscription.pendingInvoiceItems], period, issuedAt: at, description: line.description }));
    }
    await subscription.save({ transaction: tx });
    const step = cycle === 0 ? 'trial_ended' : billed ? 'renewal' : 'renewal_skipped';
    return { step, cycled: true, issue };
  }

  return {
    /**
     * Applies the earliest step due by `workflowNow` (or by the test clock's time) and answers what it did and what
     * comes next. Repeating a call after its transaction committed finds that step done: retries apply nothing twice.
     */
    async applyNextStep(tenant: Tenant, subscriptionId: string, workflowNow: Date): Promise<SubscriptionStepResult> {
      return sequelize.transaction(async (tx) => {
        const subscription = await Subscription.findOne({ where: { id: subscriptionId, ...tenantWhere(tenant) }, lock: tx.LOCK.UPDATE, transaction: tx });
        if (!subscription) throw new Error(`subscription ${subscriptionId} does not exist in ${tenant.accountId}/${tenant.environment}`);
        const clock = subscription.testClockId ? await TestClock.findByPk(subscription.testClockId, { transaction: tx }) : null;
        const now = clock ? clock.frozenTime : workflowNow;
        const account = (await Account.findByPk(tenant.accountId, { transaction: tx }))!;

        /** What is due: a settled charge first (whenever it happened), else the earliest timed step. */
        async function agenda(): Promise<{ settle?: () => Promise<Applied>; next?: Due }> {
          const open = await SubscriptionCharge.findAll({
            where: { subscriptionId: subscription!.id, state: { [Op.in]: ['pending', 'failed'] } },
            order: [['dueAt', 'ASC'], ['invoiceId', 'ASC']],
            transaction: tx,
          });
          const invoices = new Map(
            (await Invoice.findAll({ where: { id: { [Op.in]: open.map((c) => c.invoiceId) } }, attributes: ['id', 'status', 'amount', 'currency'], transaction: tx })).map((i) => [i.id, i]),
          );
          // An invoice this transaction has yet to write (its step's `issue`) is not settled.
          const settled = open.find((c) => ['paid', 'void'].includes(invoices.get(c.invoiceId)?.status ?? 'open'));
          if (settled) return { settle: () => settle(tx, tenant, subscription!, settled, invoices.get(settled.invoiceId)!, now) };
          const sub = subscription!;
          // After the last retry, `nextRetryAt` schedules the final action instead.
          const dunning: Due[] = !sub.nextRetryAt
            ? []
            : sub.status === 'unpaid'
              ? [{ at: sub.nextRetryAt, step: 'final_action', apply: () => finalAction(tx, tenant, sub, account) }]
              : [{ at: sub.nextRetryAt, step: 'dunning_retry', apply: () => retry(tx, tenant, sub) }];
          const [next] = [
            ...open.filter((c) => c.state === 'pending').map((c): Due => ({ at: c.dueAt, step: 'charge_due', apply: () => chargeDue(tx, tenant, sub, c) })),
            ...dunning,
            { at: sub.currentPeriodEnd, step: 'period_end', apply: () => periodEnded(tx, tenant, sub) } satisfies Due,
          ].sort((a, b) => a.at.getTime() - b.at.getTime() || TIMED_STEP_RANK[a.step] - TIMED_STEP_RANK[b.step]);
          return { next };
        }

        // Read anew each time: a step may cancel the subscription.
        const canceled = () => subscription.status === 'canceled';
        let applied: Applied | null = null;
        let upcoming: Awaited<ReturnType<typeof agenda>> = {};
        if (!canceled()) {
          const due = await agenda();
          if (due.settle) applied = await due.settle();
          else if (due.next && due.next.at <= now) applied = await due.next.apply();
          // What comes next is read after the step, in its transaction, so the workflow needs no call to learn it.
          upcoming = applied === null ? due : canceled() ? {} : await agenda();
          await applied?.issue?.();
        }
        return {
          applied: applied?.step ?? null,
          status: subscription.status,
          cycled: applied?.cycled ?? false,
          dueNow: upcoming.settle !== undefined || (upcoming.next !== undefined && upcoming.next.at <= now),
          nextAt: upcoming.next ? upcoming.next.at.getTime() : null,
          next: upcoming.next?.step ?? null,
          testClockId: subscription.testClockId,
          clockTime: clock ? now.getTime() : null,
        };
      });
    },
  };
}

export type SubscriptionLifecycle = ReturnType<typeof createSubscriptionLifecycle>;
