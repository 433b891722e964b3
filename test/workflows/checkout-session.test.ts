import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { QueryTypes } from 'sequelize';
import { createActivities } from '../../activities';
import { CheckoutSession, Delivery, DiscountCode, EmailMessage, License, ReferralLink } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { settleInvoiceOfCompletedSession } from '../../domain/invoices/settle';
import { completeCheckoutSession } from '../../domain/checkout/transitions';
import { DEFAULT_DOWNLOAD_LIMIT } from '../../domain/checkout/fulfillment-delivery';
import { createDownloadLinks, DOWNLOAD_PATH } from '../../domain/deliveries/links';
import { createStarters } from '../../domain/workflow-starters';
import { startRecordedNow } from '../../domain/workflow-starts';
import { loadConfig, requireEncryptionKey } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import { createLogger } from '../../lib/logger';
import { formatAmount } from '../../lib/money';
import type { checkoutSession } from '../../workflows/checkout-session';
import { checkoutStateQuery, workflowIds, type CheckoutWorkflowState } from '../../workflows/messages';
import { insertCheckoutSessionRow, lineOf, type CheckoutOverrides } from '../fixtures/checkout';
import { appliedSteps, countRows, eventsOfSession, insertCappedDiscount, insertSellableProduct } from '../fixtures/fulfillment';
import { insertReferralLink } from '../fixtures/referrals';
import { newTenant } from '../fixtures/workspaces';
import { createTestContext, type TestContext } from '../helpers/context';
import { useTimeSkippingWorker } from '../helpers/time-skipping';
import { waitFor } from '../helpers/wait';
import { testActivityDeps } from '../helpers/worker';
import { plainHistory } from '../helpers/temporal-codec';

const HOUR = 3_600_000;
const config = loadConfig(process.env);
const box = createCryptoBox(requireEncryptionKey(config));
const links = createDownloadLinks({ secret: requireEncryptionKey(config), publicBaseUrl: config.PUBLIC_BASE_URL });
const logger = createLogger('silent', 'checkout-workflow-test');

let ctx: TestContext;
let activities: ReturnType<typeof createActivities>;

beforeAll(async () => {
  ctx = await createTestContext();
  activities = createActivities(testActivityDeps(ctx.sequelize, { config, box }));
});
afterAll(() => ctx.close());

type Handle = WorkflowHandle<typeof checkoutSession>;

async function recordHistory(handle: Handle, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  await writeFile(path.join(__dirname, '../replay/histories', `${name}.json`), JSON.stringify(await plainHistory(handle), null, 2));
}

/** The expiry timer the workflow set, and how long the run took, in workflow (skipped) time. */
async function timeline(handle: Handle): Promise<{ timerMs: number; fired: boolean; elapsedMs: number }> {
  const events = (await handle.fetchHistory()).events ?? [];
  const { EVENT_TYPE_TIMER_STARTED, EVENT_TYPE_TIMER_FIRED } = temporal.api.enums.v1.EventType;
  const timer = events.find((e) => e.eventType === EVENT_TYPE_TIMER_STARTED);
  return {
    timerMs: tsToMs(timer!.timerStartedEventAttributes!.startToFireTimeout),
    fired: events.some((e) => e.eventType === EVENT_TYPE_TIMER_FIRED),
    elapsedMs: tsToMs(events.at(-1)!.eventTime) - tsToMs(events[0]!.eventTime),
  };
}

/** The paths into the workflow a request takes: the durable start after create, and the merchant's confirm. */
function checkoutFlow(env: TestWorkflowEnvironment, taskQueue: string) {
  // The time-skipping server has no custom search attributes.
  const starters = createStarters(env.client, { taskQueue, searchAttributes: false });
  const deps = { sequelize: ctx.sequelize, starters, logger };
  return {
    starters,
    async start(session: CheckoutSession): Promise<Handle> {
      const workflowId = workflowIds.checkoutSession(session.id);
      await startRecordedNow(deps, workflowId);
      return env.client.workflow.getHandle<typeof checkoutSession>(workflowId);
    },
    confirm: (tenant: Tenant, sessionId: string) => completeCheckoutSession(deps, tenant, sessionId, { from: 'pending_review', settleSource: settleInvoiceOfCompletedSession }),
  };
}

/** The real activities, with the fulfillment held before `step` until released. */
function holdingAt(step: string) {
  let reached!: () => void;
  let release!: () => void;
  const atStep = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    atStep,
    release,
    activities: {
      ...activities,
      async runCheckoutFulfillmentStep(input: Parameters<typeof activities.runCheckoutFulfillmentStep>[0]) {
        if (input.step === step) {
          reached();
          await released;
        }
        return activities.runCheckoutFulfillmentStep(input);
      },
    },
  };
}

const state = (step: CheckoutWorkflowState['step'], status: CheckoutWorkflowState['status'], currentStep: string | null = null): CheckoutWorkflowState => ({ step, status, currentStep });

describe('checkout-session workflow (time-skipping server, real activities and database)', () => {
  const timeSkipping = useTimeSkippingWorker();
  const run = <R>(fn: (env: TestWorkflowEnvironment, taskQueue: string) => Promise<R>, runActivities: object = activities) => timeSkipping.run(fn, { activities: runActivities });
  /** Sessions are created on the server's clock, which runs ahead of the wall clock as earlier tests skip time. */
  const insertSession = async (tenant: Tenant, overrides: CheckoutOverrides = {}) =>
    insertCheckoutSessionRow(ctx.sequelize, tenant, { now: new Date(await timeSkipping.env.currentTimeMs()), ...overrides });

  async function expectNothingFulfilled(sessionId: string) {
    expect(await appliedSteps(ctx.sequelize, sessionId)).toEqual([]);
    expect(await Delivery.count({ where: { checkoutSessionId: sessionId } })).toBe(0);
    expect(await License.count({ where: { checkoutSessionId: sessionId } })).toBe(0);
    expect(await countRows(ctx.sequelize, 'balance_transactions', 'source_id', sessionId)).toBe(0);
    expect(await eventsOfSession(ctx.sequelize, sessionId)).toEqual([]);
  }

  it('expires an open session at the 24-hour default: expired with expiredAt, nothing fulfilled', async () => {
    const tenant = await newTenant(ctx);
    const product = await insertSellableProduct(ctx.sequelize, tenant, { files: ['book.pdf'] });
    const now = await timeSkipping.env.currentTimeMs();
    const session = await insertCheckoutSessionRow(ctx.sequelize, tenant, { now: new Date(now), lineItems: [lineOf(product.id)] });
    expect(session.expiresAt.getTime()).toBe(now + 24 * HOUR);

    const { outcome, waiting, times } = await run(async (env, taskQueue) => {
      const handle = await checkoutFlow(env, taskQueue).start(session);
      const waiting = await handle.query(checkoutStateQuery);
      const outcome = await handle.result();
      await recordHistory(handle, 'checkout-session-expired');
      return { outcome, waiting, times: await timeline(handle) };
    });

    expect(waiting).toEqual(state('awaiting_payment', 'open'));
    expect(outcome).toBe('expired');
    // The deadline is the 24-hour default, less the moments between the insert and the workflow's first task.
    expect(times.timerMs).toBeGreaterThan(24 * HOUR - 60_000);
    expect(times.timerMs).toBeLessThanOrEqual(24 * HOUR);
    const row = (await CheckoutSession.findByPk(session.id))!;
    expect(row.status).toBe('expired');
    expect(row.expiredAt!.getTime()).toBeGreaterThanOrEqual(session.expiresAt.getTime());
    expect(row.expiredAt!.getTime() - session.expiresAt.getTime()).toBeLessThan(60_000);
    await expectNothingFulfilled(session.id);
  });

  it('expires at a custom expiresAt (2 hours), not at the default', async () => {
    const tenant = await newTenant(ctx);
    const now = await timeSkipping.env.currentTimeMs();
    const session = await insertSession(tenant, { expiresAt: new Date(now + 2 * HOUR) });

    const { outcome, times } = await run(async (env, taskQueue) => {
      const handle = await checkoutFlow(env, taskQueue).start(session);
      return { outcome: await handle.result(), times: await timeline(handle) };
    });

    expect(outcome).toBe('expired');
    expect(times.timerMs).toBeGreaterThan(2 * HOUR - 60_000);
    expect(times.timerMs).toBeLessThanOrEqual(2 * HOUR);
    expect(times.elapsedMs).toBeLessThan(3 * HOUR);
    expect((await CheckoutSession.findByPk(session.id))!.status).toBe('expired');
    await expectNothingFulfilled(session.id);
  });

  it('keeps a session paid before the deadline (pending_review) waiting for the merchant, without a deadline, then fulfils it on confirm', async () => {
    const tenant = await newTenant(ctx);
    const product = await insertSellableProduct(ctx.sequelize, tenant, { files: ['book.pdf'] });
    const session = await insertSession(tenant, { status: 'pending_review', lineItems: [lineOf(product.id)] });

    const { waiting, waitingLater, running, outcome } = await run(async (env, taskQueue) => {
      const flow = checkoutFlow(env, taskQueue);
      const handle = await flow.start(session);
      await env.sleep(25 * HOUR);
      // The workflow learned the status from the row at the deadline (no signal was sent).
      const waiting = await waitFor(async () => {
        const s = await handle.query(checkoutStateQuery);
        return s.step === 'awaiting_confirmation' && s;
      });
      await env.sleep(7 * 24 * HOUR);
      const waitingLater = await handle.query(checkoutStateQuery);
      const running = (await handle.describe()).status.name;
      expect((await CheckoutSession.findByPk(session.id))!.status).toBe('pending_review');
      await flow.confirm(tenant, session.id);
      return { waiting, waitingLater, running, outcome: await handle.result() };
    });

    expect(waiting).toEqual(state('awaiting_confirmation', 'pending_review'));
    expect(waitingLater).toEqual(state('awaiting_confirmation', 'pending_review'));
    expect(running).toBe('RUNNING');
    expect(outcome).toBe('fulfilled');
    expect(await CheckoutSession.findByPk(session.id)).toMatchObject({ status: 'completed', expiredAt: null });
    expect(await Delivery.count({ where: { checkoutSessionId: session.id } })).toBe(1);
  });

  it('fulfils on the completion signal: a delivery of the right kind per product line, licences, discount, referral, credit, events and receipt, each once', async () => {
    const tenant = await newTenant(ctx);
    const ebook = await insertSellableProduct(ctx.sequelize, tenant, { files: ['ebook-v1.pdf', 'ebook-v2.pdf'] });
    const keyOnly = await insertSellableProduct(ctx.sequelize, tenant, { licenseEnabled: true, maxActivations: 3 });
    const app = await insertSellableProduct(ctx.sequelize, tenant, { licenseEnabled: true, files: ['setup.exe'] });
    const mug = await insertSellableProduct(ctx.sequelize, tenant, { type: 'physical' });
    const coaching = await insertSellableProduct(ctx.sequelize, tenant);
    const discount = await insertCappedDiscount(tenant);
    const referral = await insertReferralLink(tenant);
    const lineItems = [
      { ...lineOf(ebook.id, 1000, 1, 'a'), name: 'Ebook' },
      { ...lineOf(keyOnly.id, 2000, 2, 'b'), name: 'Plugin' },
      { ...lineOf(app.id, 3000, 1, 'c'), name: 'App' },
      { ...lineOf(mug.id, 500, 1, 'd'), name: 'Mug' },
      { ...lineOf(coaching.id, 4000, 1, 'e'), name: 'Coaching' },
      { ...lineOf('unused', 300, 1, 'fee'), productId: null, name: 'Handling' },
    ];
    const subtotal = lineItems.reduce((sum, l) => sum + l.amount, 0);
    const metadata = { orderRef: 'R-17', source: 'spring-campaign' };
    const session = await insertSession(tenant, {
      status: 'pending_review',
      lineItems,
      subtotal,
      amount: subtotal - 1000,
      discount: { id: discount.id, code: discount.code, amount: 1000 },
      referralCode: referral.code.toLowerCase(),
      customerName: 'Ada Buyer',
      customerEmail: 'ada@example.com',
      successUrl: 'https://shop.example/thanks',
      shippingAddress: { line1: '1 Main St', city: 'Springfield', country: 'US' },
      metadata,
    });
    const hold = holdingAt('balance');

    const { paid, fulfilling, outcome, finished } = await run(async (env, taskQueue) => {
      const flow = checkoutFlow(env, taskQueue);
      const handle = await flow.start(session);
      await flow.starters.checkoutPaymentSubmitted(session.id);
      const paid = await handle.query(checkoutStateQuery);
      await flow.confirm(tenant, session.id);
      await hold.atStep;
      const fulfilling = await handle.query(checkoutStateQuery);
      hold.release();
      const outcome = await handle.result();
      const finished = await handle.query(checkoutStateQuery);
      await recordHistory(handle, 'checkout-session-fulfilled');
      return { paid, fulfilling, outcome, finished };
    }, hold.activities);

    expect(paid).toEqual(state('awaiting_confirmation', 'pending_review'));
    expect(fulfilling).toEqual(state('fulfilling', 'completed', 'balance'));
    expect(outcome).toBe('fulfilled');
    expect(finished).toEqual(state('fulfilled', 'completed'));
    expect(await appliedSteps(ctx.sequelize, session.id)).toEqual([
      'discount',
      'delivery:a',
      'delivery:b',
      'delivery:c',
      'delivery:d',
      'delivery:e',
      'balance',
      'referral',
      'event:checkout.completed',
      'email:receipt',
      'fulfilled',
    ]);
    const row = (await CheckoutSession.findByPk(session.id))!;
    expect(row).toMatchObject({ status: 'completed', discountApplied: true });
    expect(row.fulfilledAt).toBeInstanceOf(Date);

    // Deliveries: the newest file of a digital product; a key alone; a licensed download carries its key; manual otherwise.
    const licences = await License.findAll({ where: { checkoutSessionId: session.id } });
    const keyOf = (productId: string) => licences.find((l) => l.productId === productId)!.key;
    expect(licences.map((l) => [l.lineKey, l.productId, l.maxActivations]).sort()).toEqual([
      ['b', keyOnly.id, 3],
      ['c', app.id, 1],
    ]);
    const deliveries = await Delivery.findAll({ where: { checkoutSessionId: session.id }, order: [['lineKey', 'ASC']] });
    expect(deliveries.map((d) => ({ line: d.lineKey, product: d.productId, kind: d.kind, file: d.fileId, count: d.downloadCount, limit: d.downloadLimit, key: d.licenseKey }))).toEqual([
      { line: 'a', product: ebook.id, kind: 'download', file: ebook.fileIds[1], count: 0, limit: DEFAULT_DOWNLOAD_LIMIT, key: null },
      { line: 'b', product: keyOnly.id, kind: 'license', file: null, count: null, limit: null, key: keyOf(keyOnly.id) },
      { line: 'c', product: app.id, kind: 'download', file: app.fileIds[0], count: 0, limit: DEFAULT_DOWNLOAD_LIMIT, key: keyOf(app.id) },
      { line: 'd', product: mug.id, kind: 'manual', file: null, count: null, limit: null, key: null },
      { line: 'e', product: coaching.id, kind: 'manual', file: null, count: null, limit: null, key: null },
    ]);
    for (const d of deliveries) expect({ accountId: d.accountId, environment: d.environment, metadata: d.metadata }).toEqual({ ...tenant, metadata });

    expect(await DiscountCode.findByPk(discount.id)).toMatchObject({ usesTotal: 1 });
    expect(await countRows(ctx.sequelize, 'discount_redemptions', 'reference', session.id)).toBe(1);
    expect((await ReferralLink.findByPk(referral.id))!.conversions).toBe(1);
    const credits = await ctx.sequelize.query<{ type: string; pending_delta: string; available_delta: string; checkout_session_id: string }>(
      `SELECT type, pending_delta, available_delta, checkout_session_id FROM balance_transactions WHERE source_id = :id`,
      { replacements: { id: session.id }, type: QueryTypes.SELECT },
    );
    expect(credits).toEqual([{ type: 'checkout_credit', pending_delta: String(session.amount), available_delta: '0', checkout_session_id: session.id }]);
    const [balance] = await ctx.sequelize.query<{ pending: string; available: string }>(`SELECT pending, available FROM balances WHERE account_id = :accountId AND environment = 'test'`, {
      replacements: tenant,
      type: QueryTypes.SELECT,
    });
    expect(balance).toEqual({ pending: String(session.amount), available: '0' });
    // The credit is marked due for the settlement sweep, at the credit's own time; no settlement workflow is started.
    const [due] = await ctx.sequelize.query<{ at_credit: boolean }>(
      `SELECT d.credited_at = c.created_at AS at_credit FROM settlement_dues d JOIN balance_transactions c ON c.type = 'checkout_credit' AND c.source_id = d.checkout_session_id WHERE d.checkout_session_id = :id`,
      { replacements: { id: session.id }, type: QueryTypes.SELECT },
    );
    expect(due).toEqual({ at_credit: true });
    expect(await countRows(ctx.sequelize, 'workflow_starts', 'workflow_id', workflowIds.settlement(session.id))).toBe(0);

    // Events: one product.purchased per delivery, then one checkout.completed (manual confirmation).
    const events = await eventsOfSession(ctx.sequelize, session.id);
    expect(events.map((e) => e.type)).toEqual([...deliveries.map(() => 'product.purchased'), 'checkout.completed']);
    const purchased = events.filter((e) => e.type === 'product.purchased').map((e) => e.data);
    expect(purchased.map((p) => [p.deliveryId, p.productId, p.licenseKey, p.metadata])).toEqual(
      deliveries.map((d) => [d.id, d.productId, d.licenseKey, { ...metadata, hasShipping: d.productId === mug.id }]),
    );
    const completed = events.at(-1)!.data;
    expect(completed).toMatchObject({
      id: session.id,
      accountId: tenant.accountId,
      status: 'completed',
      amount: session.amount,
      currency: 'USD',
      customerEmail: 'ada@example.com',
      paymentMethod: 'va',
      discountCode: discount.code,
      discountApplied: true,
      metadata: { orderRef: 'R-17', source: 'manual_confirm' },
    });

    // The receipt: queued once, carrying fresh download links and both keys. This worker has no SMTP server, so the
    // session's own attempt failed and handed the receipt to its email-delivery workflow (a durable start, once).
    const emails = await EmailMessage.findAll({ where: { businessKey: `checkout_receipt:${session.id}` } });
    expect(emails.map((e) => [e.kind, e.toAddress, e.status, e.attempts])).toEqual([['checkout_receipt', 'ada@example.com', 'pending', 1]]);
    expect(emails[0]!.lastError).toMatch(/SMTP_URL is not set/);
    expect(await countRows(ctx.sequelize, 'workflow_starts', 'workflow_id', workflowIds.emailDelivery(emails[0]!.id))).toBe(1);
    const { text } = JSON.parse(box.open(emails[0]!.body!)) as { text: string };
    expect(text).toContain('Hi Ada Buyer');
    expect(text).toContain(keyOf(keyOnly.id));
    expect(text).toContain(keyOf(app.id));
    const tokens = [...text.matchAll(new RegExp(`${config.PUBLIC_BASE_URL}${DOWNLOAD_PATH}/(\\S+)`, 'g'))].map((m) => m[1]!);
    expect(tokens.map((t) => links.verify(t))).toEqual([{ deliveryId: deliveries[0]!.id }, { deliveryId: deliveries[2]!.id }]);
    expect(text).toMatch(/ebook-v2\.pdf: /);
    expect(text).toMatch(/setup\.exe: /);
    // The discount with its code, and "View your order" on the first line's order page, not the merchant's success URL.
    expect(text).toContain(`Subtotal: ${formatAmount(session.subtotal, 'USD')}\nDiscount (${discount.code}): −$10.00\nTotal: ${formatAmount(session.amount, 'USD')}`);
    expect(text).toContain(`View your order: ${config.PUBLIC_BASE_URL}/order/${deliveries[0]!.id}\n`);
    expect(text).not.toContain('shop.example/thanks');

    // Every step again (a replay after a crash): nothing is applied twice.
    for (const step of await appliedSteps(ctx.sequelize, session.id)) {
      expect(await activities.runCheckoutFulfillmentStep({ ...tenant, sessionId: session.id, step })).toBe('already_applied');
    }
    expect(await Delivery.count({ where: { checkoutSessionId: session.id } })).toBe(5);
    expect(await License.count({ where: { checkoutSessionId: session.id } })).toBe(2);
    expect(await eventsOfSession(ctx.sequelize, session.id)).toHaveLength(6);
    expect(await countRows(ctx.sequelize, 'balance_transactions', 'source_id', session.id)).toBe(1);
    expect(await countRows(ctx.sequelize, 'email_messages', 'business_key', `checkout_receipt:${session.id}`)).toBe(1);
    expect((await DiscountCode.findByPk(discount.id))!.usesTotal).toBe(1);
    expect((await ReferralLink.findByPk(referral.id))!.conversions).toBe(1);
  });

  it('runs the steps as local activities; a step failing its local tries runs as an ordinary activity, retried with its last failure visible, and applies once', async () => {
    const tenant = await newTenant(ctx);
    const product = await insertSellableProduct(ctx.sequelize, tenant, { files: ['book.pdf'] });
    const session = await insertSession(tenant, { status: 'pending_review', lineItems: [lineOf(product.id)] });
    // The balance step fails its three local tries and the ordinary activity's first attempt, then waits to be released.
    let failures = 4;
    let reached!: () => void;
    let release!: () => void;
    const atRetry = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const flaky = {
      ...activities,
      async runCheckoutFulfillmentStep(input: Parameters<typeof activities.runCheckoutFulfillmentStep>[0]) {
        if (input.step === 'balance') {
          if (failures > 0) {
            failures -= 1;
            throw new Error('ledger unavailable');
          }
          reached();
          await released;
        }
        return activities.runCheckoutFulfillmentStep(input);
      },
    };

    const { pending, outcome, events } = await run(async (env, taskQueue) => {
      const flow = checkoutFlow(env, taskQueue);
      const handle = await flow.start(session);
      await flow.confirm(tenant, session.id);
      await atRetry;
      const pending = ((await handle.describe()).raw.pendingActivities ?? []).map((a) => ({ type: a.activityType?.name, attempt: a.attempt, failure: a.lastFailure?.message }));
      release();
      const outcome = await handle.result();
      await recordHistory(handle, 'checkout-session-step-fallback');
      return { pending, outcome, events: (await handle.fetchHistory()).events ?? [] };
    }, flaky);

    // What an operator sees while the step keeps failing: a pending activity, its attempt and its last failure.
    expect(pending).toEqual([{ type: 'runCheckoutFulfillmentStep', attempt: 2, failure: 'ledger unavailable' }]);
    expect(outcome).toBe('fulfilled');
    // Only the failing step became an activity task: the plan and every other step ran inside workflow tasks.
    const { EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, EVENT_TYPE_MARKER_RECORDED } = temporal.api.enums.v1.EventType;
    expect(events.filter((e) => e.eventType === EVENT_TYPE_ACTIVITY_TASK_SCHEDULED).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name)).toEqual([
      'runCheckoutFulfillmentStep',
    ]);
    // Six for the plan and the steps; two for the receipt's attempt and, as this worker has no SMTP server, its hand-off.
    expect(events.filter((e) => e.eventType === EVENT_TYPE_MARKER_RECORDED && e.markerRecordedEventAttributes!.markerName === 'core_local_activity')).toHaveLength(8);
    expect(await appliedSteps(ctx.sequelize, session.id)).toEqual(['delivery:1', 'balance', 'event:checkout.completed', 'email:receipt', 'fulfilled']);
    expect(await countRows(ctx.sequelize, 'balance_transactions', 'source_id', session.id)).toBe(1);
  });

  it('completes both of two concurrent sessions on a code with one use left; only one counts the use, the other records discountApplied false', async () => {
    const tenant = await newTenant(ctx);
    const product = await insertSellableProduct(ctx.sequelize, tenant, { licenseEnabled: true });
    const discount = await insertCappedDiscount(tenant, 1);
    const sessions = await Promise.all(
      [0, 1].map(() =>
        insertSession(tenant, { status: 'pending_review', lineItems: [lineOf(product.id)], amount: 900, discount: { id: discount.id, code: discount.code, amount: 100 } }),
      ),
    );

    const outcomes = await run(async (env, taskQueue) => {
      const flow = checkoutFlow(env, taskQueue);
      const handles = await Promise.all(sessions.map((s) => flow.start(s)));
      await Promise.all(sessions.map((s) => flow.confirm(tenant, s.id)));
      // One result at a time: concurrent result() calls on the time-skipping client leave a time-skipping lock
      // behind, which stops the auto-skip of every later test in the file.
      const results: string[] = [];
      for (const handle of handles) results.push(await handle.result());
      return results;
    });

    expect(outcomes).toEqual(['fulfilled', 'fulfilled']);
    const rows = await Promise.all(sessions.map(async (s) => (await CheckoutSession.findByPk(s.id))!));
    expect(rows.map((r) => r.status)).toEqual(['completed', 'completed']);
    expect(rows.map((r) => r.discountApplied).sort()).toEqual([false, true]);
    expect((await DiscountCode.findByPk(discount.id))!.usesTotal).toBe(1);
    expect(await countRows(ctx.sequelize, 'discount_redemptions', 'discount_id', discount.id)).toBe(1);
    for (const row of rows) {
      const events = await eventsOfSession(ctx.sequelize, row.id);
      expect(events.map((e) => e.type)).toEqual(['product.purchased', 'checkout.completed']);
      expect(events[1]!.data.discountApplied).toBe(row.discountApplied);
      expect(await License.count({ where: { checkoutSessionId: row.id } })).toBe(1);
      expect(await countRows(ctx.sequelize, 'balance_transactions', 'source_id', row.id)).toBe(1);
    }
  });

  it('fulfils at the deadline a session completed whose signal never arrived', async () => {
    const tenant = await newTenant(ctx);
    const product = await insertSellableProduct(ctx.sequelize, tenant, { files: ['book.pdf'] });
    const now = await timeSkipping.env.currentTimeMs();
    const session = await insertSession(tenant, { status: 'pending_review', lineItems: [lineOf(product.id)], expiresAt: new Date(now + 3 * HOUR) });

    const { outcome, times } = await run(async (env, taskQueue) => {
      const handle = await checkoutFlow(env, taskQueue).start(session);
      expect(await handle.query(checkoutStateQuery)).toEqual(state('awaiting_payment', 'open'));
      // Committed as completed, but the wake-up never reached the workflow.
      await session.update({ status: 'completed', completedAt: new Date() });
      return { outcome: await handle.result(), times: await timeline(handle) };
    });

    expect(outcome).toBe('fulfilled');
    expect(times.fired).toBe(true);
    expect(times.elapsedMs).toBeGreaterThanOrEqual(times.timerMs);
    expect(times.timerMs).toBeGreaterThan(3 * HOUR - 60_000);
    expect(await Delivery.count({ where: { checkoutSessionId: session.id } })).toBe(1);
    expect((await eventsOfSession(ctx.sequelize, session.id)).map((e) => e.type)).toEqual(['product.purchased', 'checkout.completed']);
    expect((await CheckoutSession.findByPk(session.id))!.fulfilledAt).toBeInstanceOf(Date);
  });
});
