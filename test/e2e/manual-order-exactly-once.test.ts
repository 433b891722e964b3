import { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { QueryTypes, type Transaction } from 'sequelize';
import { Delivery, EmailMessage, License } from '../../db/models';
import { planManualOrderFulfillment } from '../../domain/manual-orders/fulfillment-plan';
import { createManualOrderService } from '../../domain/manual-orders/service';
import { createStarters } from '../../domain/workflow-starters';
import { emailMessageId } from '../../lib/email';
import { createLogger } from '../../lib/logger';
import { workflowIds } from '../../workflows/messages';
import { TEST_EMAIL_FROM, testEmailBox, testEmailConfig } from '../fixtures/emails';
import { insertManualOrder, manualStore, orderLine } from '../fixtures/manual-orders';
import { insertProductFile } from '../fixtures/products';
import { tenantOf } from '../fixtures/workspaces';
import { createTestContext, type TestContext } from '../helpers/context';
import { usePrivateDatabase } from '../helpers/private-database';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtp-server';
import { testDataConverter } from '../helpers/temporal-codec';
import { waitFor } from '../helpers/wait';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { EMAIL_SEND_RECOVERY_MS } from '../../workflows/email-timing';

/**
 * The confirmation fulfillment of a manual order exactly once end to end: `worker/main.ts` (Temporal worker, start
 * relay, outbox relay, as deployed) as a child process, SIGKILLed in the middle of a fulfillment step and started
 * again, on a database and a namespace of this file's own (a relay takes every pending row of its database).
 */
/** A send the kill caught is tried again within EMAIL_SEND_RECOVERY_MS; a minute more for the restarted worker to pick it up. */
const RECEIPT_WAIT_MS = EMAIL_SEND_RECOVERY_MS + 60_000;

jest.setTimeout(600_000);

usePrivateDatabase('manual_order_exactly_once');
const namespace = `manual-order-e2e-${process.pid}-${Date.now()}`;
const taskQueue = 'commerce-manual-order-e2e';

let ctx: TestContext;
let client: Client;
let smtp: TestSmtpServer;
let worker: WorkerProcess | undefined;

const startWorker = async () => {
  worker = await startWorkerProcess({
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_TASK_QUEUE: taskQueue,
    SMTP_URL: smtp.url,
    EMAIL_FROM: TEST_EMAIL_FROM,
  });
};

beforeAll(async () => {
  ctx = await createTestContext();
  smtp = await startTestSmtpServer();
  await ctx.temporal.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  client = new Client({ connection: ctx.temporal.connection, namespace, dataConverter: testDataConverter() });
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await ctx?.close();
});

const until = <T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 60_000) =>
  waitFor(probe, { timeoutMs, intervalMs: 250, describe: () => `${what}\n--- worker output ---\n${worker?.output() ?? ''}` });

async function stepsOf(orderId: string): Promise<string[]> {
  const rows = await ctx.sequelize.query<{ step: string }>('SELECT step FROM manual_order_fulfillment_steps WHERE manual_order_id = :orderId ORDER BY step', {
    type: QueryTypes.SELECT,
    replacements: { orderId },
  });
  return rows.map((row) => row.step);
}

describe('manual-order fulfillment under a worker crash (dev server, worker process)', () => {
  it('fulfils a confirmed order exactly once though the worker is SIGKILLed inside a delivery step and restarted', async () => {
    const store = await manualStore(ctx);
    const tenant = tenantOf(store.ws);
    await insertProductFile(store.ws, store.ebook.id, { fileName: 'ebook.pdf' });
    const order = await insertManualOrder(ctx.sequelize, store.ws, store.ebook.id, {
      lines: [orderLine(store.ebook.id), orderLine(store.app.id, { lineKey: '2', productName: 'App', licenseEnabled: true, unitAmount: 9900, amount: 9900 })],
    });
    const service = createManualOrderService({
      sequelize: ctx.sequelize,
      config: testEmailConfig,
      box: testEmailBox,
      starters: createStarters(client, { taskQueue }),
      logger: createLogger('silent', 'manual-order-e2e'),
    });
    await startWorker();

    // Holds the licensed product's row: delivery:2 issues its licence (a row referencing the product) and waits here.
    let release!: () => void;
    let held!: Promise<void>;
    const locked = new Promise<void>((lockTaken) => {
      held = ctx.sequelize
        .transaction(async (tx: Transaction) => {
          await ctx.sequelize.query('SELECT id FROM products WHERE id = :id FOR UPDATE', { replacements: { id: store.app.id }, transaction: tx });
          lockTaken();
          await new Promise<void>((resolve) => (release = resolve));
        })
        .then(() => undefined);
    });
    await locked;

    await service.update({ ...tenant, apiKeyId: 'key_e2e' }, order.id, { paymentStatus: 'payment_confirmed' });
    await until(async () => (await stepsOf(order.id)).includes('delivery:1'), 'delivery:1 to land');
    await until(async () => {
      const [row] = await ctx.sequelize.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        { type: QueryTypes.SELECT },
      );
      return row!.n > 0;
    }, 'delivery:2 to wait for the product row');
    expect(await stepsOf(order.id)).toEqual(['delivery:1']);

    await worker!.kill();
    worker = undefined;
    release();
    await held;
    // The killed attempt's transaction died with its connection: nothing of delivery:2 is left.
    expect(await Delivery.count({ where: { manualOrderId: order.id } })).toBe(1);
    expect(await License.count({ where: { ...tenant, productId: store.app.id } })).toBe(0);

    await startWorker();
    // Temporal retries the lost attempt once its start-to-close timeout (1 minute) has passed.
    const outcome = await until(() => client.workflow.getHandle(workflowIds.manualOrder(order.id)).result(), 'the workflow to finish', RECEIPT_WAIT_MS);
    expect(outcome).toBe('fulfilled');

    expect(await stepsOf(order.id)).toEqual([...planManualOrderFulfillment(order.lines)].sort());
    const deliveries = await Delivery.findAll({ where: { manualOrderId: order.id }, order: [['lineKey', 'ASC']] });
    expect(deliveries.map((d) => [d.lineKey, d.kind])).toEqual([
      ['1', 'download'],
      ['2', 'license'],
    ]);
    const licences = await License.findAll({ where: { ...tenant, productId: store.app.id } });
    expect(licences.map((l) => l.key)).toEqual([deliveries[1]!.licenseKey]);
    const events = await ctx.sequelize.query<{ deliveryId: string }>(
      `SELECT data->>'deliveryId' AS "deliveryId" FROM events WHERE type = 'product.purchased' AND data->>'manualOrderId' = :orderId`,
      { type: QueryTypes.SELECT, replacements: { orderId: order.id } },
    );
    expect(events.map((e) => e.deliveryId).sort()).toEqual(deliveries.map((d) => d.id).sort());

    // The receipt and the confirmation each reach the mailbox, under their one Message-ID. A send the kill caught
    // in flight is retried after its own start-to-close and backoff (EMAIL_SEND_RECOVERY_MS).
    for (const businessKey of [`manual_order_receipt:${order.id}`, `payment_confirmed:${order.id}`]) {
      const messageId = emailMessageId({ ...tenant, businessKey }, TEST_EMAIL_FROM);
      await until(async () => smtp.received.some((m) => m.parsed.messageId === messageId), `the e-mail ${businessKey}`, RECEIPT_WAIT_MS);
      expect(await EmailMessage.count({ where: { ...tenant, businessKey } })).toBe(1);
    }
    const receipt = smtp.received.find((m) => m.parsed.messageId === emailMessageId({ ...tenant, businessKey: `manual_order_receipt:${order.id}` }, TEST_EMAIL_FROM))!;
    expect(receipt.parsed.text).toContain(licences[0]!.key);
  });
});
