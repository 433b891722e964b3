import type { Transaction } from 'sequelize';
import { BillingPlan, Customer, Subscription, type InvoiceLineItem, type SubscriptionStatus } from '../../db/models';
import { emit } from '../../db/outbox';
import { listPage, type PageRequest } from '../../db/pagination';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { invalidState, notFound, validationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { CURRENCY_EXPONENTS } from '../../lib/money';
import type { AuthContext } from '../auth-context';
import { enforcePlanCap } from '../plan-caps';
import type { ServiceDeps } from '../service-deps';
import { recordStart, startRecordedNow } from '../workflow-starts';
import { clockNow } from '../clock-time';
import { signalSubscription } from '../workflow-starts';
import { cancelSubscription, periodLine, prepareSubscriptionInvoice, type ChargeConfig, type PendingSubscriptionInvoice } from './billing';
import { toSubscriptionDto, type SubscriptionDto } from './dto';
import type { CreateSubscriptionBody, UpdateSubscriptionBody } from './inputs';
import { dayOf, periodOf, prorate } from './periods';

export interface SubscriptionListQuery extends PageRequest {
  status?: SubscriptionStatus;
  customerId?: string;
}

const DAY_MS = 86_400_000;

/** Only currencies the service collects in (a checkout session's and an e-mail's): others cannot be charged locally. */
const collectable = (currency: string) => Object.hasOwn(CURRENCY_EXPONENTS, currency);

/**
 * The proration of a plan switch at `now` within [start, end) (docs/decisions/billing.md, "Subscriptions"): the
 * unused share of what the current period was billed at is credited, the same share of the new plan charged,
 * each rounded half up to the smallest unit. Nothing is prorated in a period that was not billed (trial, pause).
 */
export function prorationLines(
  subscription: Pick<Subscription, 'currentPeriodStart' | 'currentPeriodEnd' | 'currentPeriodAmount'>,
  from: Pick<BillingPlan, 'name'>,
  to: Pick<BillingPlan, 'name' | 'amount'>,
  now: Date,
): InvoiceLineItem[] {
  const whole = subscription.currentPeriodEnd.getTime() - subscription.currentPeriodStart.getTime();
  const remaining = subscription.currentPeriodEnd.getTime() - now.getTime();
  if (subscription.currentPeriodAmount === 0 || remaining <= 0) return [];
  const credit = prorate(subscription.currentPeriodAmount, remaining, whole);
  const charge = prorate(to.amount, remaining, whole);
  const span = `${dayOf(now)} to ${dayOf(subscription.currentPeriodEnd)}`;
  return [
    { description: `Unused time on ${from.name} (${span})`, quantity: 1, unitAmount: -credit, amount: -credit },
    { description: `Remaining time on ${to.name} (${span})`, quantity: 1, unitAmount: charge, amount: charge },
  ];
}

export interface SubscriptionOperationOptions {
  /** The real time of the request (the subscription's own time is its test clock's when it has one); tests pass the time-skipping server's. */
  now?: Date;
}

/**
 * Subscriptions (document 2) in local mode. Each request changes the row under its lock and records, in the same
 * transaction, the signal that makes the `subscription:sub_…` workflow read it again, so the two never disagree;
 * every later move (trial end, renewals, dunning, deferred cancel) is the workflow's (./lifecycle.ts).
 */
export function createSubscriptionService(deps: Pick<ServiceDeps, 'sequelize' | 'config' | 'logger' | 'starters'>) {
  const { sequelize } = deps;
  const config: ChargeConfig = deps.config;

  async function locked(tx: Transaction, tenant: Tenant, id: string): Promise<Subscription> {
    const row = await Subscription.findOne({ where: { id, ...tenant }, lock: tx.LOCK.UPDATE, transaction: tx });
    if (!row) throw notFound('Subscription');
    return row;
  }

  /** A plan a subscription may be put on: this workspace's, active and collectable. */
  async function usablePlan(tx: Transaction, tenant: Tenant, planId: string): Promise<BillingPlan> {
    const plan = await BillingPlan.findOne({ where: { id: planId, ...tenant }, transaction: tx });
    if (!plan) throw notFound('Plan');
    if (!plan.active) throw validationError(`planId: plan ${planId} is archived and accepts no new subscriptions`, [{ field: 'planId', message: 'archived plan' }]);
    if (!collectable(plan.currency)) {
      throw validationError(`planId: local mode collects only ${Object.keys(CURRENCY_EXPONENTS).join(', ')}; this plan is in ${plan.currency}`, [{ field: 'planId', message: 'currency not collectable' }]);
    }
    return plan;
  }

  /** Starts, right after commit, what the transaction recorded (the relay would otherwise, within seconds). */
  async function startAll(workflowIds: string[]): Promise<void> {
    for (const id of new Set(workflowIds)) await startRecordedNow(deps, id);
  }

  return {
    /**
     * Trialing (with `trialDays`, or the plan's) until the trial's end, or active at once with its first period's
     * invoice open. Emits `subscription.created`; the workflow starts with it.
     */
    async create(auth: AuthContext, input: CreateSubscriptionBody, { now: realNow = new Date() }: SubscriptionOperationOptions = {}): Promise<SubscriptionDto> {
      const tenant = tenantWhere(auth);
      const { dto, workflowIds } = await sequelize.transaction(async (tx) => {
        const customer = await Customer.findOne({ where: { id: input.customerId, ...tenant }, transaction: tx });
        if (!customer) throw notFound('Customer');
        // Fixed now: a subscription is charged by the backend it started on, whatever the module says later.
        const backend = auth.account.paymentEnabled ? 'provider' : 'local';
        // Local mode sends each invoice's payment link by e-mail; the provider charges a saved method instead.
        if (backend === 'local' && !customer.email) throw validationError('customerId: the customer has no e-mail to send invoices to', [{ field: 'customerId', message: 'customer without e-mail' }]);
        // A local customer has no provider customer, so no saved method the provider could ever charge.
        if (backend === 'provider' && !customer.providerCustomerId) {
          throw validationError('customerId: a local (cust_) customer cannot be charged by the payment provider; create the customer with the payment module on', [
            { field: 'customerId', message: 'local customer in provider mode' },
          ]);
        }
        const plan = await usablePlan(tx, tenant, input.planId);
        const now = await clockNow(tx, customer.testClockId, realNow, { forRequest: true });
        await enforcePlanCap(tx, auth, 'subscriptions');
        const trialDays = input.trialDays ?? plan.trialDays ?? 0;
        const trialEnd = trialDays > 0 ? new Date(now.getTime() + trialDays * DAY_MS) : null;
        const anchor = trialEnd ?? now;
        const period = trialEnd ? { start: now, end: trialEnd } : periodOf(anchor, plan, 0);
        const subscription = await Subscription.create(
          {
            id: newId('sub'),
            ...tenant,
            backend,
            customerId: customer.id,
            planId: plan.id,
            testClockId: customer.testClockId,
            status: trialEnd ? 'trialing' : 'active',
            billingAnchor: anchor,
            cycle: trialEnd ? -1 : 0,
            currentPeriodStart: period.start,
            currentPeriodEnd: period.end,
            currentPeriodAmount: trialEnd ? 0 : plan.amount,
            trialEnd,
            metadata: input.metadata ?? {},
          },
          { transaction: tx },
        );
        let invoice: PendingSubscriptionInvoice | null = null;
        if (!trialEnd) {
          const line = periodLine(plan, period.start, period.end);
          invoice = await prepareSubscriptionInvoice(tx, tenant, config, subscription, { reason: 'subscription_create', lines: [line], period, issuedAt: now, description: line.description });
          await subscription.save({ transaction: tx });
        }
        const dto = toSubscriptionDto(subscription);
        await emit(tx, tenant, 'subscription.created', dto);
        const workflowIds = [await recordStart(tx, tenant, { workflowType: 'subscription', input: { ...tenant, subscriptionId: subscription.id } }), ...(invoice?.workflowIds ?? [])];
        await invoice?.issue();
        return { dto, workflowIds };
      });
      await startAll(workflowIds);
      return dto;
    },

    list(auth: AuthContext, query: SubscriptionListQuery) {
      return listPage(sequelize, Subscription, {
        tenant: auth,
        where: { ...(query.status ? { status: query.status } : {}), ...(query.customerId ? { customerId: query.customerId } : {}) },
        page: query,
        idPrefix: 'sub',
        toDto: toSubscriptionDto,
      });
    },

    async retrieve(auth: AuthContext, id: string): Promise<SubscriptionDto> {
      const row = await Subscription.findOne({ where: { id, ...tenantWhere(auth) } });
      if (!row) throw notFound('Subscription');
      return toSubscriptionDto(row);
    },

    /**
     * Plan switch (same currency and interval; prorated, see prorationLines: a positive difference is invoiced at
     * once, a credit is carried to the next period's invoice), pause (`active` → `paused`), resume (`paused` →
     * `active`), metadata (replaced). A canceled subscription takes only metadata.
     */
    async update(auth: AuthContext, id: string, input: UpdateSubscriptionBody, { now: realNow = new Date() }: SubscriptionOperationOptions = {}): Promise<SubscriptionDto> {
      const tenant = tenantWhere(auth);
      const { dto, workflowIds } = await sequelize.transaction(async (tx) => {
        const subscription = await locked(tx, tenant, id);
        const changesState = (input.planId !== undefined && input.planId !== subscription.planId) || (input.status !== undefined && input.status !== subscription.status);
        if (changesState && subscription.status === 'canceled') throw invalidState('This subscription is canceled; only its metadata can change');
        const now = changesState ? await clockNow(tx, subscription.testClockId, realNow, { forRequest: true }) : realNow;
        const workflowIds: string[] = [];
        let proration: PendingSubscriptionInvoice | null = null;

        if (input.planId !== undefined && input.planId !== subscription.planId) {
          if (!['active', 'trialing', 'paused'].includes(subscription.status)) {
            throw invalidState(`This subscription is ${subscription.status}; its plan can change once the unpaid invoice is settled`);
          }
          const from = (await BillingPlan.findByPk(subscription.planId, { transaction: tx }))!;
          const to = await usablePlan(tx, tenant, input.planId);
          if (to.currency !== from.currency || to.interval !== from.interval || to.intervalCount !== from.intervalCount) {
            throw validationError(`planId: a plan switch keeps the currency and billing interval (${from.currency}, every ${from.intervalCount} ${from.interval}); cancel and subscribe anew to change them`, [
              { field: 'planId', message: 'different currency or interval' },
            ]);
          }
          const lines = subscription.status === 'active' ? prorationLines(subscription, from, to, now) : [];
          const net = lines.reduce((sum, line) => sum + line.amount, 0);
          // Once prorated, the rest of the period counts at the new price (a second switch credits that).
          subscription.set({ planId: to.id, ...(lines.length > 0 ? { currentPeriodAmount: to.amount } : {}) });
          if (net > 0) {
            const period = { start: now, end: subscription.currentPeriodEnd };
            const pending = subscription.pendingInvoiceItems;
            const description = `Plan change to ${to.name} (${dayOf(now)} to ${dayOf(period.end)})`;
            proration = await prepareSubscriptionInvoice(tx, tenant, config, subscription, { reason: 'subscription_update', lines, period, issuedAt: now, description });
            // A proration invoice carries only its own lines; credits waiting for the next period stay waiting.
            subscription.set({ pendingInvoiceItems: pending });
            workflowIds.push(...proration.workflowIds);
          } else if (lines.length > 0) {
            subscription.set({ pendingInvoiceItems: [...subscription.pendingInvoiceItems, ...lines] });
          }
        }

        if (input.status !== undefined && input.status !== subscription.status) {
          if (input.status === 'paused' && subscription.status !== 'active') throw invalidState(`Only an active subscription can be paused; this one is ${subscription.status}`);
          if (input.status === 'active' && subscription.status !== 'paused') throw invalidState(`Only a paused subscription can be resumed; this one is ${subscription.status}`);
          subscription.set(input.status === 'paused' ? { status: 'paused', pausedAt: now } : { status: 'active', pausedAt: null });
        }

        if (input.metadata !== undefined) subscription.set({ metadata: input.metadata ?? {} });
        subscription.changed('updatedAt', true);
        await subscription.save({ transaction: tx });
        if (changesState) workflowIds.unshift(await signalSubscription(tx, tenant, subscription.id));
        await proration?.issue();
        return { dto: toSubscriptionDto(subscription), workflowIds };
      });
      await startAll(workflowIds);
      return dto;
    },

    /**
     * DELETE: by default `cancelAtPeriodEnd` (the workflow cancels at the period's end; repeating it changes
     * nothing); `immediate` cancels now, voiding what is still being collected, with no refund. Emits
     * `subscription.canceled` when the cancel executes.
     */
    async cancel(auth: AuthContext, id: string, { immediate }: { immediate: boolean }, { now: realNow = new Date() }: SubscriptionOperationOptions = {}): Promise<SubscriptionDto> {
      const tenant = tenantWhere(auth);
      const { dto, workflowId } = await sequelize.transaction(async (tx) => {
        const subscription = await locked(tx, tenant, id);
        if (subscription.status === 'canceled') throw invalidState('This subscription is already canceled');
        if (!immediate && subscription.cancelAtPeriodEnd) return { dto: toSubscriptionDto(subscription), workflowId: null };
        const now = await clockNow(tx, subscription.testClockId, realNow, { forRequest: true });
        if (immediate) await cancelSubscription(tx, tenant, subscription, now, config);
        else await subscription.update({ cancelAtPeriodEnd: true }, { transaction: tx });
        return { dto: toSubscriptionDto(subscription), workflowId: await signalSubscription(tx, tenant, subscription.id) };
      });
      if (workflowId) await startRecordedNow(deps, workflowId);
      return dto;
    },
  };
}

export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
