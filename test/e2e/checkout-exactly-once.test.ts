import { randomInt } from 'node:crypto';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { QueryTypes } from 'sequelize';
import { CheckoutSession, Delivery, DiscountCode, License, ReferralLink } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { insertCheckoutSession } from '../../domain/checkout/create';
import { planCheckoutFulfillment } from '../../domain/checkout/fulfillment';
import { settleInvoiceOfCompletedSession } from '../../domain/invoices/settle';
import { completeCheckoutSession } from '../../domain/checkout/transitions';
import { createStarters, type Starters } from '../../domain/workflow-starters';
import { createLogger } from '../../lib/logger';
import { ACCOUNT_ID, checkoutStateQuery, workflowIds } from '../../workflows/messages';
import { insertCheckoutSessionRow, lineOf } from '../fixtures/checkout';
import { appliedSteps, eventsOfSession, insertCappedDiscount, insertSellableProduct } from '../fixtures/fulfillment';
import { insertReferralLink } from '../fixtures/referrals';
import { newTenant } from '../fixtures/workspaces';
import { createTestContext, type TestContext } from '../helpers/context';
import { usePrivateDatabase } from '../helpers/private-database';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtp-server';
import { testDataConverter } from '../helpers/temporal-codec';
import { waitFor } from '../helpers/wait';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { EMAIL_SEND_RECOVERY_MS } from '../../workflows/email-timing';

/**
 * Exactly-once fulfillment end to end on the dev server: `worker/main.ts` (Temporal worker, start relay and outbox
 * relay, as deployed) as a child process, SIGKILLed while it fulfils and started again, on a database and a
 * namespace of this file's own. Completions come in through the domain's confirm, as the API makes them.
 */
/** A send the kill caught is tried again within EMAIL_SEND_RECOVERY_MS; a minute more for the restarted worker to pick it up. */
const RECEIPT_WAIT_MS = EMAIL_SEND_RECOVERY_MS + 60_000;

jest.setTimeout(600_000);

usePrivateDatabase('checkout_exactly_once');
const namespace = `checkout-e2e-${process.pid}-${Date.now()}`;
const taskQueue = 'commerce-checkout-e2e';
const logger = createLogger('silent', 'checkout-e2e');

let ctx: TestContext;
let client: Client;
let starters: Starters;
let smtp: TestSmtpServer;
let worker: WorkerProcess | undefined;

const workerEnv = (): Record<string, string> => ({
  TEMPORAL_NAMESPACE: namespace,
  TEMPORAL_TASK_QUEUE: taskQueue,
  SMTP_URL: smtp.url,
});
const startWorker = async () => {
  worker = await startWorkerProcess(workerEnv());
};

beforeAll(async () => {
  ctx = await createTestContext();
  smtp = await startTestSmtpServer();
  await ctx.temporal.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  client = new Client({ connection: ctx.temporal.connection, namespace, dataConverter: testDataConverter() });
  starters = createStarters(client, { taskQueue });
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await ctx?.close();
});

/** waitFor with the worker's output in the failure, which is what explains a stuck workflow. */
const until = <T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 60_000) =>
  waitFor(probe, { timeoutMs, intervalMs: 250, describe: () => `${what}\n--- worker output ---\n${worker?.output() ?? ''}` });

const pendingStart = async (workflowId: string) =>
  (
    await ctx.sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM workflow_starts WHERE workflow_id = :workflowId AND started_at IS NULL`, {
      replacements: { workflowId },
      type: QueryTypes.SELECT,
    })
  )[0]!.n;

describe('checkout-session workflows under worker crashes (dev server, worker process)', () => {
  it('starts the workflow of a session committed by an API that died before starting it: the worker’s start relay does', async () => {
    const tenant = await newTenant(ctx);
    // The API's transaction committed; the process died before its after-commit start.
    const { session, workflowId } = await ctx.sequelize.transaction((tx) =>
      insertCheckoutSession(tx, tenant, { source: 'api', amount: 1500, currency: 'USD', description: 'Orphan', customerEmail: 'buyer@example.com', paymentMethods: ['va'], lineItems: [], subtotal: 1500 }),
    );
    expect(workflowId).toBe(workflowIds.checkoutSession(session.id));
    const handle = client.workflow.getHandle(workflowId);
    await expect(handle.describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect(await pendingStart(workflowId)).toBe(1);

    await startWorker();
    const described = await until(async () => (await handle.describe().catch(() => undefined)) ?? false, 'the relay to start the workflow');
    expect({ type: described.type, status: described.status.name, accountId: described.typedSearchAttributes.get(ACCOUNT_ID) }).toEqual({
      type: 'checkoutSession',
      status: 'RUNNING',
      accountId: tenant.accountId,
    });
    expect(await until(async () => (await pendingStart(workflowId)) === 0 && (await handle.query(checkoutStateQuery)), 'the workflow to answer')).toEqual({
      step: 'awaiting_payment',
      status: 'open',
      currentStep: null,
    });
  });

  it('fulfils every session exactly once while the worker is SIGKILLed at random points and restarted', async () => {
    const SESSIONS = 20;
    const BATCH = 4;
    const DISCOUNT_USES = 15;
    const tenant: Tenant = await newTenant(ctx, 'pro');
    const ebook = await insertSellableProduct(ctx.sequelize, tenant, { files: ['ebook.pdf'] });
    const plugin = await insertSellableProduct(ctx.sequelize, tenant, { licenseEnabled: true, maxActivations: 2 });
    const app = await insertSellableProduct(ctx.sequelize, tenant, { licenseEnabled: true, files: ['setup.exe'] });
    const mug = await insertSellableProduct(ctx.sequelize, tenant, { type: 'physical' });
    const discount = await insertCappedDiscount(tenant, DISCOUNT_USES);
    const referral = await insertReferralLink(tenant);
    const lineItems = [lineOf(ebook.id, 1000, 1, 'a'), lineOf(plugin.id, 2000, 1, 'b'), lineOf(app.id, 3000, 1, 'c'), lineOf(mug.id, 1500, 2, 'd')];
    const sessions: CheckoutSession[] = [];
    for (let i = 0; i < SESSIONS; i += 1) {
      sessions.push(
        await insertCheckoutSessionRow(ctx.sequelize, tenant, {
          status: 'pending_review',
          lineItems,
          amount: 9000 - 500 - i,
          subtotal: 9000,
          discount: { id: discount.id, code: discount.code, amount: 500 },
          referralCode: referral.code,
          customerEmail: `buyer${i}@example.com`,
          metadata: { n: String(i) },
        }),
      );
    }
    const planned = planCheckoutFulfillment(sessions[0]!).length;
    const deps = { sequelize: ctx.sequelize, starters, logger };
    const partialAtKill: number[] = [];

    if (!worker) await startWorker();
    for (let first = 0; first < SESSIONS; first += BATCH) {
      const batch = sessions.slice(first, first + BATCH);
      await Promise.all(batch.map((s) => completeCheckoutSession(deps, tenant, s.id, { from: 'pending_review', settleSource: settleInvoiceOfCompletedSession })));
      // Kill while the batch is being fulfilled: once some step of it landed, after a random moment more.
      await until(async () => (await Promise.all(batch.map((s) => appliedSteps(ctx.sequelize, s.id)))).some((steps) => steps.length > 0), 'a first step of the batch');
      await new Promise((resolve) => setTimeout(resolve, randomInt(0, 400)));
      await worker!.kill();
      worker = undefined;
      const progress = await Promise.all(sessions.map((s) => appliedSteps(ctx.sequelize, s.id)));
      partialAtKill.push(progress.filter((steps) => steps.length > 0 && steps.length < planned).length);
      await startWorker();
    }

    const fulfilled = await until(
      async () => {
        const rows = await CheckoutSession.findAll({ where: { id: sessions.map((s) => s.id) } });
        return rows.every((r) => r.fulfilledAt !== null) && rows;
      },
      'every session fulfilled',
      300_000,
    );
    // The kills did land in the middle of fulfillments (a session with some of its steps applied, not all).
    expect(partialAtKill.some((n) => n > 0)).toBe(true);

    for (const session of sessions) {
      expect(await client.workflow.getHandle(workflowIds.checkoutSession(session.id)).result()).toBe('fulfilled');
      expect(await appliedSteps(ctx.sequelize, session.id)).toEqual(planCheckoutFulfillment(session));
      const deliveries = await Delivery.findAll({ where: { checkoutSessionId: session.id }, order: [['lineKey', 'ASC']] });
      expect(deliveries.map((d) => [d.lineKey, d.kind])).toEqual([
        ['a', 'download'],
        ['b', 'license'],
        ['c', 'download'],
        ['d', 'manual'],
      ]);
      const licences = await License.findAll({ where: { checkoutSessionId: session.id } });
      expect(licences.map((l) => l.lineKey).sort()).toEqual(['b', 'c']);
      expect(deliveries.filter((d) => d.licenseKey).map((d) => d.licenseKey).sort()).toEqual(licences.map((l) => l.key).sort());
      const events = await eventsOfSession(ctx.sequelize, session.id);
      expect(events.filter((e) => e.type === 'checkout.completed')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'product.purchased').map((e) => e.data.deliveryId).sort()).toEqual(deliveries.map((d) => d.id).sort());
      // One credit; the settlement sweep (TEST_SETTLEMENT_DELAY after it) may have settled it too, once, moving the same amount.
      const ledger = await ctx.sequelize.query<{ type: string; pending_delta: string }>(`SELECT type, pending_delta FROM balance_transactions WHERE checkout_session_id = :id`, {
        replacements: { id: session.id },
        type: QueryTypes.SELECT,
      });
      expect(ledger.filter((row) => row.type === 'checkout_credit')).toEqual([{ type: 'checkout_credit', pending_delta: String(session.amount) }]);
      expect(ledger.filter((row) => row.type !== 'checkout_credit').map((row) => [row.type, row.pending_delta])).toEqual(
        ledger.length === 2 ? [['settlement', String(-session.amount)]] : [],
      );
    }

    // The code's cap held across crashes: exactly its uses were counted, the rest recorded as not applied.
    expect((await DiscountCode.findByPk(discount.id))!.usesTotal).toBe(DISCOUNT_USES);
    expect(fulfilled.filter((r) => r.discountApplied === true)).toHaveLength(DISCOUNT_USES);
    expect(fulfilled.filter((r) => r.discountApplied === false)).toHaveLength(SESSIONS - DISCOUNT_USES);
    expect((await ReferralLink.findByPk(referral.id))!.conversions).toBe(SESSIONS);

    // The maintained balance equals the ledger's sum, which is the sum of what the sessions paid (pending, or
    // available once the sweep settled a session).
    const [ledger] = await ctx.sequelize.query<{ balance: string; ledger: string }>(
      `SELECT (SELECT pending + available FROM balances WHERE account_id = :accountId AND environment = :environment AND currency = 'USD') AS balance,
              (SELECT sum(pending_delta + available_delta) FROM balance_transactions WHERE account_id = :accountId AND environment = :environment) AS ledger`,
      { replacements: tenant, type: QueryTypes.SELECT },
    );
    const paid = sessions.reduce((sum, s) => sum + s.amount, 0);
    expect(ledger).toEqual({ balance: String(paid), ledger: String(paid) });

    // Each buyer's receipt reaches the mailbox under one Message-ID (a send cut short by a kill repeats it). A send
    // the kill caught in flight is retried after its own start-to-close and backoff (EMAIL_SEND_RECOVERY_MS).
    const receipts = await until(
      async () => {
        const ids = new Set(smtp.received.filter((m) => m.parsed.subject?.startsWith('Your receipt')).map((m) => m.parsed.messageId));
        return ids.size >= SESSIONS && ids;
      },
      'every receipt sent',
      RECEIPT_WAIT_MS,
    );
    expect(receipts.size).toBe(SESSIONS);
  });
});
