import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities';
import { Account, CheckoutSession, Invoice, Subscription, SubscriptionCharge } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { paymentBackendFor } from '../../domain/checkout/backends';
import { settleInvoiceOfCompletedSession } from '../../domain/invoices/settle';
import { completeCheckoutSession, payCheckoutSession } from '../../domain/checkout/transitions';
import { periodEnd } from '../../domain/subscriptions/periods';
import { createSubscriptionService } from '../../domain/subscriptions/service';
import { createStarters, type Starters } from '../../domain/workflow-starters';
import { startRecordedNow } from '../../domain/workflow-starts';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import type { subscription as subscriptionWorkflow } from '../../workflows/subscription';
import { subscriptionStateQuery, workflowIds, type SubscriptionPhase } from '../../workflows/messages';
import { authOf, insertBillingCustomer, insertPlan, invoicesOf, paymentFailedEmails, subscriptionEvents } from '../fixtures/subscriptions';
import { newTenant } from '../fixtures/workspaces';
import { createTestContext, type TestContext } from '../helpers/context';
import { useTimeSkippingWorker } from '../helpers/time-skipping';
import { waitFor } from '../helpers/wait';
import { testActivityDeps } from '../helpers/worker';
import { plainHistory } from '../helpers/temporal-codec';

const DAY = 86_400_000;
const MINUTE = 60_000;
const config = loadConfig(process.env);
const logger = createLogger('silent', 'subscription-workflow-test');

let ctx: TestContext;
let activities: ReturnType<typeof createActivities>;

beforeAll(async () => {
  ctx = await createTestContext();
  activities = createActivities(testActivityDeps(ctx.sequelize, { config }));
});
afterAll(() => ctx.close());

type Handle = WorkflowHandle<typeof subscriptionWorkflow>;

/** Writes the history of the workflow's first or last run (one per cycle) for the replay test. */
async function recordHistory(handle: Handle, name: string, run: 'first' | 'last'): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const runIds = await runIdsOf(handle);
  const chosen = handle.client.getHandle(handle.workflowId, run === 'first' ? runIds.at(-1) : runIds[0]);
  await writeFile(path.join(__dirname, '../replay/histories', `${name}.json`), JSON.stringify(await plainHistory(chosen), null, 2));
}

/**
 * The subscription's requests and payments as the API and the checkout fulfillment make them, on the server's
 * (skipped) clock. Only subscription workflows are started: the invoices' checkout-session workflows and the
 * e-mail deliveries are other files' subject, so their recorded starts are marked done without running them.
 */
function subscriptionFlow(env: TestWorkflowEnvironment, taskQueue: string, tenant: Tenant) {
  const all = createStarters(env.client, { taskQueue, searchAttributes: false });
  const starters: Starters = {
    ...all,
    startRecorded: (row, timeoutMs) => (row.workflowType === 'subscription' || row.workflowType === 'subscriptionChanged' ? all.startRecorded(row, timeoutMs) : Promise.resolve()),
  };
  const deps = { sequelize: ctx.sequelize, config, logger, starters };
  const service = createSubscriptionService(deps);
  const auth = authOf(tenant);
  const now = async () => new Date(await env.currentTimeMs());
  const created: string[] = [];
  return {
    now,
    /**
     * Cancels the run's subscriptions still running and waits for their workflows to end: their timers would fall
     * due in a later test's skipped time, on a task queue no worker polls any more.
     */
    async endAll(): Promise<void> {
      for (const id of created) {
        const handle = env.client.workflow.getHandle<typeof subscriptionWorkflow>(workflowIds.subscription(id));
        if ((await handle.describe()).status.name !== 'RUNNING') continue;
        if ((await row(id)).status !== 'canceled') await service.cancel(auth, id, { immediate: true }, { now: await now() });
        await handle.result();
      }
    },
    handle: (subscriptionId: string): Handle => env.client.workflow.getHandle<typeof subscriptionWorkflow>(workflowIds.subscription(subscriptionId)),
    async create(body: { customerId: string; planId: string; trialDays?: number }) {
      const sub = await service.create(auth, body, { now: await now() });
      created.push(sub.id);
      return sub;
    },
    update: async (id: string, body: Parameters<typeof service.update>[2], at?: Date) => service.update(auth, id, body, { now: at ?? (await now()) }),
    cancel: async (id: string, immediate: boolean, at?: Date) => service.cancel(auth, id, { immediate }, { now: at ?? (await now()) }),
    /**
     * The local pay/confirm flow: the buyer pays on the invoice's hosted page, the merchant confirms, and the
     * completing transaction pays the invoice and records the subscription's signal.
     */
    async pay(invoiceId: string): Promise<void> {
      const invoice = (await Invoice.findByPk(invoiceId))!;
      await payCheckoutSession(deps, paymentBackendFor(config, { paymentEnabled: false }), invoice.checkoutSessionId!, 'va');
      await completeCheckoutSession(deps, tenant, invoice.checkoutSessionId!, { from: 'pending_review', settleSource: settleInvoiceOfCompletedSession });
      await startRecordedNow(deps, workflowIds.subscription(invoice.subscriptionId!));
    },
  };
}

const row = async (id: string) => (await Subscription.findByPk(id))!;
const untilRow = (id: string, accept: (s: Subscription) => boolean, describe: string) =>
  waitFor(async () => {
    const s = await row(id);
    return accept(s) && s;
  }, { describe: () => describe });
const untilEvents = (id: string, count: number) =>
  waitFor(async () => {
    const events = await subscriptionEvents(ctx.sequelize, id);
    return events.length >= count && events;
  }, { describe: () => `${count} events of ${id}` });

/** Waits until the workflow names `phase` as where the subscription is (its state query). */
const untilPhase = (handle: Handle, phase: SubscriptionPhase) =>
  waitFor(async () => (await handle.query(subscriptionStateQuery)).phase === phase, { describe: () => `phase ${phase}` });

/** The runs the workflow went through (one per cycle: continue-as-new), newest first. */
async function runIdsOf(handle: Handle): Promise<string[]> {
  const runIds = [(await handle.describe()).runId];
  for (;;) {
    const history = await handle.client.getHandle(handle.workflowId, runIds.at(-1)).fetchHistory();
    const previous = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) return runIds;
    runIds.push(previous);
  }
}

describe('subscription workflow (time-skipping server, real activities and database)', () => {
  const timeSkipping = useTimeSkippingWorker();
  const run = <R>(tenant: Tenant, fn: (flow: ReturnType<typeof subscriptionFlow>, env: TestWorkflowEnvironment) => Promise<R>) =>
    timeSkipping.run(
      async (env, taskQueue) => {
        const flow = subscriptionFlow(env, taskQueue, tenant);
        try {
          return await fn(flow, env);
        } finally {
          await flow.endAll();
        }
      },
      { activities },
    );

  async function billingSetup(planOverrides: Parameters<typeof insertPlan>[1] = {}) {
    const tenant = await newTenant(ctx, 'pro');
    const plan = await insertPlan(tenant, planOverrides);
    const customer = await insertBillingCustomer(tenant);
    return { tenant, plan, customer };
  }

  it('ends a trial at trialEnd: active with the first period’s invoice open, collected on a checkout session’s hosted page', async () => {
    const { tenant, plan, customer } = await billingSetup();
    await run(tenant, async (flow, env) => {
      const sub = await flow.create({ customerId: customer.id, planId: plan.id, trialDays: 7 });
      expect(sub).toMatchObject({ status: 'trialing', latestInvoiceId: null, currentPeriodEnd: sub.trialEnd });
      const trialEnd = new Date(sub.trialEnd!);
      expect(trialEnd.getTime() - new Date(sub.currentPeriodStart).getTime()).toBe(7 * DAY);
      await untilPhase(flow.handle(sub.id), 'trial');

      await env.sleep(7 * DAY - 10 * MINUTE);
      expect((await row(sub.id)).status).toBe('trialing');
      expect(await invoicesOf(sub.id)).toEqual([]);
      await env.sleep(20 * MINUTE);
      const active = await untilRow(sub.id, (s) => s.status === 'active', 'active after the trial');
      await untilPhase(flow.handle(sub.id), 'renewal_charge');

      const [invoice] = await invoicesOf(sub.id);
      expect(active).toMatchObject({ cycle: 0, latestInvoiceId: invoice!.id, currentPeriodStart: trialEnd });
      expect(active.currentPeriodEnd).toEqual(periodEnd(trialEnd, plan, 0));
      expect(invoice).toMatchObject({ status: 'open', amount: 100_000, subtotal: 100_000, taxAmount: 0, currency: 'IDR', issuedAt: trialEnd, periodStart: trialEnd, dueAt: new Date(trialEnd.getTime() + DAY) });
      expect(invoice!.lineItems).toEqual([{ description: expect.stringMatching(/^Pro \(\d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d\)$/), quantity: 1, unitAmount: 100_000, amount: 100_000 }]);
      const session = (await CheckoutSession.findByPk(invoice!.checkoutSessionId!))!;
      expect(invoice!.metadata).toEqual({ checkoutSessionId: session.id });
      expect(session).toMatchObject({ source: 'invoice', status: 'open', amount: 100_000, currency: 'IDR', customerId: customer.id, customerEmail: customer.email });
      expect(session.metadata).toEqual({ invoiceId: invoice!.id, subscriptionId: sub.id });

      await flow.pay(invoice!.id);
      await untilEvents(sub.id, 2);
      expect(await subscriptionEvents(ctx.sequelize, sub.id)).toEqual([
        { type: 'subscription.created', status: 'trialing' },
        { type: 'subscription.payment_succeeded', status: 'active', invoiceId: invoice!.id },
      ]);
      expect((await SubscriptionCharge.findByPk(invoice!.id))!.state).toBe('paid');
      await untilPhase(flow.handle(sub.id), 'active_period');
    });
  });

  it('renews at currentPeriodEnd: the renewal invoice, paid, emits renewed and payment_succeeded; each cycle continues as new', async () => {
    const { tenant, plan, customer } = await billingSetup();
    await run(tenant, async (flow, env) => {
      const sub = await flow.create({ customerId: customer.id, planId: plan.id });
      expect(sub.status).toBe('active');
      const [first] = await invoicesOf(sub.id);
      expect(first).toMatchObject({ status: 'open', issuedAt: new Date(sub.currentPeriodStart) });
      await flow.pay(first!.id);
      await untilEvents(sub.id, 2);

      const periodEnd = new Date(sub.currentPeriodEnd);
      await env.sleep(periodEnd.getTime() - (await env.currentTimeMs()) + MINUTE);
      const renewed = await untilRow(sub.id, (s) => s.cycle === 1, 'the first renewal');
      const invoices = await invoicesOf(sub.id);
      expect(invoices).toHaveLength(2);
      expect(invoices[1]).toMatchObject({ status: 'open', issuedAt: periodEnd, periodStart: periodEnd, periodEnd: renewed.currentPeriodEnd, amount: 100_000 });
      expect(renewed).toMatchObject({ status: 'active', currentPeriodStart: periodEnd, latestInvoiceId: invoices[1]!.id });
      await flow.pay(invoices[1]!.id);
      await untilEvents(sub.id, 4);
      expect(await subscriptionEvents(ctx.sequelize, sub.id)).toEqual([
        { type: 'subscription.created', status: 'active' },
        { type: 'subscription.payment_succeeded', status: 'active', invoiceId: first!.id },
        { type: 'subscription.renewed', status: 'active', invoiceId: invoices[1]!.id },
        { type: 'subscription.payment_succeeded', status: 'active', invoiceId: invoices[1]!.id },
      ]);
      expect((await row(sub.id)).failedPaymentCount).toBe(0);
      expect(await runIdsOf(flow.handle(sub.id))).toHaveLength(2);
      await recordHistory(flow.handle(sub.id), 'subscription-renewed', 'first');
    });
  });

  it('dunning: an unpaid renewal goes past_due, retries at T+1d, T+3d, T+7d fail with attempts 2 to 4, then unpaid and canceled', async () => {
    const { tenant, plan, customer } = await billingSetup();
    await run(tenant, async (flow, env) => {
      const sub = await flow.create({ customerId: customer.id, planId: plan.id });
      const [first] = await invoicesOf(sub.id);
      await flow.pay(first!.id);
      await untilEvents(sub.id, 2);

      const failureAt = new Date(sub.currentPeriodEnd).getTime() + DAY;
      await env.sleep(failureAt - (await env.currentTimeMs()) + MINUTE);
      const pastDue = await untilRow(sub.id, (s) => s.status === 'past_due', 'past_due');
      const renewal = (await invoicesOf(sub.id))[1]!;
      expect(pastDue).toMatchObject({ failedPaymentCount: 1, pastDueSince: new Date(failureAt), nextRetryAt: new Date(failureAt + DAY) });
      await untilPhase(flow.handle(sub.id), 'dunning_retries');
      expect(renewal.status).toBe('open');

      for (const [offset, count] of [[1, 2], [3, 3]] as const) {
        await env.sleep(failureAt + offset * DAY - (await env.currentTimeMs()) + MINUTE);
        const s = await untilRow(sub.id, (r) => r.failedPaymentCount === count, `attempt ${count}`);
        expect(s.status).toBe('past_due');
      }
      await env.sleep(failureAt + 7 * DAY - (await env.currentTimeMs()) + MINUTE);
      const canceled = await untilRow(sub.id, (s) => s.status === 'canceled', 'canceled after the last retry');
      expect(canceled).toMatchObject({ failedPaymentCount: 4, canceledAt: new Date(failureAt + 7 * DAY) });
      expect(await flow.handle(sub.id).result()).toBe('canceled');

      expect(await subscriptionEvents(ctx.sequelize, sub.id)).toEqual([
        { type: 'subscription.created', status: 'active' },
        { type: 'subscription.payment_succeeded', status: 'active', invoiceId: first!.id },
        { type: 'subscription.payment_failed', status: 'past_due', attemptCount: 1, invoiceId: renewal.id },
        { type: 'subscription.past_due', status: 'past_due', invoiceId: renewal.id },
        { type: 'subscription.payment_failed', status: 'past_due', attemptCount: 2, invoiceId: renewal.id },
        { type: 'subscription.payment_failed', status: 'past_due', attemptCount: 3, invoiceId: renewal.id },
        { type: 'subscription.payment_failed', status: 'unpaid', attemptCount: 4, invoiceId: renewal.id },
        { type: 'subscription.canceled', status: 'canceled' },
      ]);
      // Each failed attempt e-mailed the customer the invoice's payment link.
      expect(await paymentFailedEmails(ctx.sequelize, [renewal.id])).toEqual([1, 2, 3, 4].map((attempt) => ({ invoiceId: renewal.id, attempt, to: customer.email })));
      // What was still being collected is voided, and its checkout session can no longer be paid.
      expect(await Invoice.findByPk(renewal.id)).toMatchObject({ status: 'void', voidedAt: new Date(failureAt + 7 * DAY) });
      expect((await CheckoutSession.findByPk(renewal.checkoutSessionId!))!.status).toBe('expired');
      await recordHistory(flow.handle(sub.id), 'subscription-dunning-canceled', 'last');
    });
  });

  it('leaves the subscription unpaid after the last retry when the workspace says so; paying then makes it active again', async () => {
    const { tenant, plan, customer } = await billingSetup({ interval: 'weekly' });
    await Account.update({ dunningFinalAction: 'leave_unpaid' }, { where: { id: tenant.accountId } });
    await run(tenant, async (flow, env) => {
      const sub = await flow.create({ customerId: customer.id, planId: plan.id });
      const [first] = await invoicesOf(sub.id);
      const failureAt = new Date(sub.currentPeriodStart).getTime() + DAY;
      await env.sleep(failureAt + 7 * DAY - (await env.currentTimeMs()) + MINUTE);
      const unpaid = await untilRow(sub.id, (s) => s.status === 'unpaid' && s.nextRetryAt === null, 'unpaid');
      expect(unpaid.failedPaymentCount).toBe(4);
      await untilPhase(flow.handle(sub.id), 'unpaid');
      // The week's period ended during dunning (T+6d): renewed with an invoice of its own, which fell due unpaid too.
      const invoices = await invoicesOf(sub.id);
      expect(invoices.map((i) => i.status)).toEqual(['open', 'open']);
      expect((await flow.handle(sub.id).describe()).status.name).toBe('RUNNING');

      await flow.pay(first!.id);
      await flow.pay(invoices[1]!.id);
      const active = await untilRow(sub.id, (s) => s.status === 'active', 'active once paid');
      expect(active).toMatchObject({ failedPaymentCount: 0, pastDueSince: null });
      const types = (await subscriptionEvents(ctx.sequelize, sub.id)).map((e) => e.type);
      expect(types).not.toContain('subscription.canceled');
      expect(types.slice(-3)).toEqual(['subscription.payment_succeeded', 'subscription.renewed', 'subscription.payment_succeeded']);
    });
  });

  it('a payment between retries makes the subscription active again: no further attempts are counted', async () => {
    const { tenant, plan, customer } = await billingSetup();
    await run(tenant, async (flow, env) => {
      const sub = await flow.create({ customerId: customer.id, planId: plan.id });
      await flow.pay((await invoicesOf(sub.id))[0]!.id);
      await untilEvents(sub.id, 2);
      const failureAt = new Date(sub.currentPeriodEnd).getTime() + DAY;
      await env.sleep(failureAt + DAY - (await env.currentTimeMs()) + MINUTE);
      await untilRow(sub.id, (s) => s.failedPaymentCount === 2, 'the first retry failed');

      const renewal = (await invoicesOf(sub.id))[1]!;
      await flow.pay(renewal.id);
      const active = await untilRow(sub.id, (s) => s.status === 'active', 'active after payment');
      expect(active).toMatchObject({ failedPaymentCount: 0, nextRetryAt: null, pastDueSince: null });
      await env.sleep(7 * DAY);
      expect((await row(sub.id)).status).toBe('active');
      expect((await subscriptionEvents(ctx.sequelize, sub.id)).slice(2)).toEqual([
        { type: 'subscription.payment_failed', status: 'past_due', attemptCount: 1, invoiceId: renewal.id },
        { type: 'subscription.past_due', status: 'past_due', invoiceId: renewal.id },
        { type: 'subscription.payment_failed', status: 'past_due', attemptCount: 2, invoiceId: renewal.id },
        { type: 'subscription.renewed', status: 'active', invoiceId: renewal.id },
        { type: 'subscription.payment_succeeded', status: 'active', invoiceId: renewal.id },
      ]);
    });
  });

  it('pause skips exactly the next renewal; resume charges again from the next period', async () => {
    const { tenant, plan, customer } = await billingSetup();
    await run(tenant, async (flow, env) => {
      const sub = await flow.create({ customerId: customer.id, planId: plan.id });
      await flow.pay((await invoicesOf(sub.id))[0]!.id);
      await untilEvents(sub.id, 2);
      await env.sleep(10 * DAY);
      const pausedAt = new Date(await env.currentTimeMs());
      expect(await flow.update(sub.id, { status: 'paused' }, pausedAt)).toMatchObject({ status: 'paused', pausedAt: pausedAt.toISOString() });
      await untilPhase(flow.handle(sub.id), 'paused');

      const firstEnd = new Date(sub.currentPeriodEnd);
      await env.sleep(firstEnd.getTime() - (await env.currentTimeMs()) + MINUTE);
      const skipped = await untilRow(sub.id, (s) => s.cycle === 1, 'the skipped renewal');
      expect(skipped).toMatchObject({ status: 'paused', currentPeriodStart: firstEnd, currentPeriodAmount: 0 });
      expect(await invoicesOf(sub.id)).toHaveLength(1);

      await env.sleep(10 * DAY);
      expect(await flow.update(sub.id, { status: 'active' })).toMatchObject({ status: 'active', pausedAt: null });
      expect(await invoicesOf(sub.id)).toHaveLength(1);
      await env.sleep(skipped.currentPeriodEnd.getTime() - (await env.currentTimeMs()) + MINUTE);
      await untilRow(sub.id, (s) => s.cycle === 2, 'the renewal after resuming');
      const invoices = await invoicesOf(sub.id);
      expect(invoices).toHaveLength(2);
      expect(invoices[1]).toMatchObject({ issuedAt: skipped.currentPeriodEnd, periodStart: skipped.currentPeriodEnd, status: 'open' });
    });
  });

  it('cancels at the period end by default, and at once with immediate (what is being collected is voided)', async () => {
    const { tenant, plan, customer } = await billingSetup();
    await run(tenant, async (flow, env) => {
      const deferred = await flow.create({ customerId: customer.id, planId: plan.id });
      await flow.pay((await invoicesOf(deferred.id))[0]!.id);
      await untilEvents(deferred.id, 2);
      await env.sleep(5 * DAY);
      expect(await flow.cancel(deferred.id, false)).toMatchObject({ status: 'active', cancelAtPeriodEnd: true, canceledAt: null });
      // Repeating it changes nothing.
      expect(await flow.cancel(deferred.id, false)).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
      expect((await subscriptionEvents(ctx.sequelize, deferred.id)).map((e) => e.type)).not.toContain('subscription.canceled');
      const end = new Date(deferred.currentPeriodEnd);
      await env.sleep(end.getTime() - (await env.currentTimeMs()) + MINUTE);
      expect(await flow.handle(deferred.id).result()).toBe('canceled');
      expect(await row(deferred.id)).toMatchObject({ status: 'canceled', canceledAt: end });
      expect(await invoicesOf(deferred.id)).toHaveLength(1);
      expect((await subscriptionEvents(ctx.sequelize, deferred.id)).at(-1)).toEqual({ type: 'subscription.canceled', status: 'canceled' });

      const immediate = await flow.create({ customerId: customer.id, planId: plan.id });
      const [open] = await invoicesOf(immediate.id);
      await env.sleep(3 * 3_600_000);
      const at = new Date(await env.currentTimeMs());
      expect(await flow.cancel(immediate.id, true, at)).toMatchObject({ status: 'canceled', canceledAt: at.toISOString() });
      expect(await flow.handle(immediate.id).result()).toBe('canceled');
      expect(await Invoice.findByPk(open!.id)).toMatchObject({ status: 'void', voidedAt: at });
      expect((await CheckoutSession.findByPk(open!.checkoutSessionId!))!.status).toBe('expired');
      expect((await subscriptionEvents(ctx.sequelize, immediate.id)).map((e) => e.type)).toEqual(['subscription.created', 'subscription.canceled']);
    });
  });

  it('prorates a plan switch against the current period: an upgrade is invoiced at once, a downgrade’s credit goes on the next invoice', async () => {
    const { tenant, plan, customer } = await billingSetup({ name: 'Basic', amount: 100_000 });
    const pro = await insertPlan(tenant, { name: 'Premium', amount: 300_000 });
    await run(tenant, async (flow, env) => {
      const sub = await flow.create({ customerId: customer.id, planId: plan.id });
      await flow.pay((await invoicesOf(sub.id))[0]!.id);
      await untilEvents(sub.id, 2);
      const start = new Date(sub.currentPeriodStart).getTime();
      const end = new Date(sub.currentPeriodEnd).getTime();
      const whole = end - start;
      const share = (amount: number, at: number) => Math.floor((2 * amount * (end - at) + whole) / (2 * whole));

      await env.sleep(10 * DAY);
      const upgradeAt = await env.currentTimeMs();
      expect(await flow.update(sub.id, { planId: pro.id }, new Date(upgradeAt))).toMatchObject({ planId: pro.id, status: 'active' });
      const proration = (await invoicesOf(sub.id))[1]!;
      const credit = share(100_000, upgradeAt);
      const charge = share(300_000, upgradeAt);
      expect(proration.lineItems).toEqual([
        { description: expect.stringMatching(/^Unused time on Basic \(/), quantity: 1, unitAmount: -credit, amount: -credit },
        { description: expect.stringMatching(/^Remaining time on Premium \(/), quantity: 1, unitAmount: charge, amount: charge },
      ]);
      expect(proration).toMatchObject({ status: 'open', subtotal: charge - credit, amount: charge - credit, issuedAt: new Date(upgradeAt), periodEnd: new Date(end) });
      expect(await SubscriptionCharge.findByPk(proration.id)).toMatchObject({ reason: 'subscription_update', state: 'pending', dueAt: new Date(upgradeAt + DAY) });
      await flow.pay(proration.id);
      await untilEvents(sub.id, 3);

      // Over half the period left (at least 18 of 28 to 31 days): the credit exceeds the next period's price.
      await env.sleep(3_600_000);
      const downgradeAt = await env.currentTimeMs();
      await flow.update(sub.id, { planId: plan.id }, new Date(downgradeAt));
      expect(await invoicesOf(sub.id)).toHaveLength(2);
      const downCredit = share(300_000, downgradeAt);
      const downCharge = share(100_000, downgradeAt);
      expect((await row(sub.id)).pendingInvoiceItems.map((l) => l.amount)).toEqual([-downCredit, downCharge]);

      await env.sleep(end - (await env.currentTimeMs()) + MINUTE);
      await untilRow(sub.id, (s) => s.cycle === 1, 'the renewal');
      // The credit is larger than the period's price: the invoice is balanced to zero (paid as issued) and the rest
      // of the credit waits for the next one.
      const renewal = (await invoicesOf(sub.id))[2]!;
      const carried = downCredit - downCharge - 100_000;
      expect(carried).toBeGreaterThan(0);
      expect(renewal.lineItems).toEqual([
        { description: expect.stringMatching(/^Basic \(/), quantity: 1, unitAmount: 100_000, amount: 100_000 },
        { description: expect.stringMatching(/^Unused time on Premium \(/), quantity: 1, unitAmount: -downCredit, amount: -downCredit },
        { description: expect.stringMatching(/^Remaining time on Basic \(/), quantity: 1, unitAmount: downCharge, amount: downCharge },
        { description: 'Credit carried to the next invoice', quantity: 1, unitAmount: carried, amount: carried },
      ]);
      expect(renewal).toMatchObject({ amount: 0, status: 'paid', checkoutSessionId: null });
      expect((await row(sub.id)).pendingInvoiceItems).toEqual([{ description: `Credit carried from the invoice of ${renewal.periodStart!.toISOString().slice(0, 10)}`, quantity: 1, unitAmount: -carried, amount: -carried }]);
      await untilEvents(sub.id, 5);
      expect((await subscriptionEvents(ctx.sequelize, sub.id)).slice(2)).toEqual([
        { type: 'subscription.payment_succeeded', status: 'active', invoiceId: proration.id },
        { type: 'subscription.renewed', status: 'active', invoiceId: renewal.id },
        { type: 'subscription.payment_succeeded', status: 'active', invoiceId: renewal.id },
      ]);
    });
  });
});
