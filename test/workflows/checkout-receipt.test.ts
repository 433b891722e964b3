import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities';
import { EmailMessage } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { completeCheckoutSession } from '../../domain/checkout/transitions';
import { settleInvoiceOfCompletedSession } from '../../domain/invoices/settle';
import { createStarters } from '../../domain/workflow-starters';
import { startRecordedNow } from '../../domain/workflow-starts';
import { loadConfig, requireEncryptionKey } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import { createMailer } from '../../lib/email';
import { createLogger } from '../../lib/logger';
import type { checkoutSession } from '../../workflows/checkout-session';
import type { emailDelivery } from '../../workflows/email-delivery';
import { workflowIds } from '../../workflows/messages';
import { insertCheckoutSessionRow, lineOf } from '../fixtures/checkout';
import { countRows, insertSellableProduct } from '../fixtures/fulfillment';
import { newTenant } from '../fixtures/workspaces';
import { createTestContext, type TestContext } from '../helpers/context';
import { localActivityTypes } from '../helpers/history';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtp-server';
import { plainHistory } from '../helpers/temporal-codec';
import { useTimeSkippingWorker } from '../helpers/time-skipping';
import { testActivityDeps } from '../helpers/worker';

/**
 * The checkout receipt sent by the session workflow itself (docs/decisions/email.md, "The checkout receipt"): one
 * attempt after the last fulfillment step, on the sent-log row the `email:receipt` step queued; a failed attempt is
 * handed to the receipt's own email-delivery workflow, and a refusal for good ends it `failed`.
 */
const config = loadConfig(process.env);
const box = createCryptoBox(requireEncryptionKey(config));
const logger = createLogger('silent', 'checkout-receipt-test');

let ctx: TestContext;
let smtp: TestSmtpServer;
let activities: ReturnType<typeof createActivities>;

beforeAll(async () => {
  ctx = await createTestContext();
  smtp = await startTestSmtpServer();
  activities = createActivities(testActivityDeps(ctx.sequelize, { config, box, mailer: createMailer({ SMTP_URL: smtp.url, EMAIL_FROM: config.EMAIL_FROM }) }));
});
afterAll(async () => {
  await smtp.close();
  await ctx.close();
});
afterEach(() => smtp.acceptAll());

async function recordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  await writeFile(path.join(__dirname, '../replay/histories', `${name}.json`), JSON.stringify(await plainHistory(handle), null, 2));
}

/** The activity types a run ran as local activities, in order. */
async function localActivities(handle: WorkflowHandle): Promise<string[]> {
  return localActivityTypes((await handle.fetchHistory()).events ?? []);
}

const receiptsTo = (address: string) => smtp.received.filter((m) => m.envelope.to.includes(address));

describe('the checkout receipt, sent by the session workflow (time-skipping server, real SMTP server and database)', () => {
  const timeSkipping = useTimeSkippingWorker();

  /** A paid session of one digital product, confirmed by the merchant; resolves to its finished workflow. */
  async function fulfil(env: TestWorkflowEnvironment, taskQueue: string, tenant: Tenant, buyer: string) {
    const product = await insertSellableProduct(ctx.sequelize, tenant, { files: ['book.pdf'] });
    const session = await insertCheckoutSessionRow(ctx.sequelize, tenant, {
      now: new Date(await env.currentTimeMs()),
      status: 'pending_review',
      lineItems: [lineOf(product.id)],
      customerEmail: buyer,
    });
    const starters = createStarters(env.client, { taskQueue, searchAttributes: false });
    const deps = { sequelize: ctx.sequelize, starters, logger };
    const workflowId = workflowIds.checkoutSession(session.id);
    await startRecordedNow(deps, workflowId);
    await completeCheckoutSession(deps, tenant, session.id, { from: 'pending_review', settleSource: settleInvoiceOfCompletedSession });
    const handle = env.client.workflow.getHandle<typeof checkoutSession>(workflowId);
    expect(await handle.result()).toBe('fulfilled');
    const [email] = await EmailMessage.findAll({ where: { businessKey: `checkout_receipt:${session.id}` } });
    return { session, handle, email: email!, deps };
  }

  it('sends it once, under the sent-log row’s Message-ID, with no email-delivery workflow; a replayed attempt sends nothing', async () => {
    const tenant = await newTenant(ctx);
    const buyer = 'grace@example.com';
    const { session, handle, email, locals } = await timeSkipping.run(
      async (env, taskQueue) => {
        const run = await fulfil(env, taskQueue, tenant, buyer);
        await recordHistory(run.handle, 'checkout-session-receipt-sent');
        return { ...run, locals: await localActivities(run.handle) };
      },
      { activities },
    );

    expect(handle.workflowId).toBe(workflowIds.checkoutSession(session.id));
    expect(locals.slice(-1)).toEqual(['sendCheckoutReceipt']);
    expect(email.status).toBe('sent');
    expect(email.attempts).toBe(1);
    expect(email.body).toBeNull();
    const received = receiptsTo(buyer);
    expect(received).toHaveLength(1);
    expect(received[0]!.parsed.messageId).toBe(email.messageId);
    expect(received[0]!.parsed.subject).toMatch(/^Your receipt/);
    // No durable start of its own: the session workflow was the sender.
    expect(await countRows(ctx.sequelize, 'workflow_starts', 'workflow_id', workflowIds.emailDelivery(email.id))).toBe(0);

    // The attempt again (a replay after a crash between the send and the workflow task's completion): nothing sent.
    expect(await activities.sendCheckoutReceipt({ ...tenant, sessionId: session.id })).toBe('already_sent');
    expect(receiptsTo(buyer)).toHaveLength(1);
  });

  it('hands a receipt whose attempt failed (451) to its email-delivery workflow, which sends it under the same Message-ID', async () => {
    const tenant = await newTenant(ctx);
    const buyer = 'linus@example.com';
    smtp.refuseNext(1, 451);
    const { email, pending, locals, delivered } = await timeSkipping.run(
      async (env, taskQueue) => {
        const run = await fulfil(env, taskQueue, tenant, buyer);
        await recordHistory(run.handle, 'checkout-session-receipt-handed-off');
        const pending = await EmailMessage.findByPk(run.email.id);
        // The start relay's part: start what the hand-off recorded.
        const deliveryId = workflowIds.emailDelivery(run.email.id);
        await startRecordedNow(run.deps, deliveryId);
        const delivered = await env.client.workflow.getHandle<typeof emailDelivery>(deliveryId).result();
        return { ...run, pending: pending!, locals: await localActivities(run.handle), delivered };
      },
      { activities },
    );

    expect(locals.slice(-2)).toEqual(['sendCheckoutReceipt', 'handOffCheckoutReceipt']);
    expect({ status: pending.status, attempts: pending.attempts }).toEqual({ status: 'pending', attempts: 1 });
    expect(pending.lastError).toMatch(/451/);
    expect(await countRows(ctx.sequelize, 'workflow_starts', 'workflow_id', workflowIds.emailDelivery(email.id))).toBe(1);
    expect(delivered).toBe('sent');
    const received = receiptsTo(buyer);
    expect(received).toHaveLength(1);
    expect(received[0]!.parsed.messageId).toBe(email.messageId);
    expect(await EmailMessage.findByPk(email.id)).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('ends a receipt refused for good (550) failed, without handing it on', async () => {
    const tenant = await newTenant(ctx);
    const buyer = 'ada@example.com';
    smtp.refuseNext(1, 550);
    const { email, locals } = await timeSkipping.run(
      async (env, taskQueue) => {
        const run = await fulfil(env, taskQueue, tenant, buyer);
        return { ...run, locals: await localActivities(run.handle) };
      },
      { activities },
    );

    expect(locals.slice(-2)).toEqual(['sendCheckoutReceipt', 'handOffCheckoutReceipt']);
    const row = (await EmailMessage.findByPk(email.id))!;
    expect({ status: row.status, attempts: row.attempts, body: row.body }).toEqual({ status: 'failed', attempts: 1, body: null });
    expect(row.lastError).toMatch(/550/);
    expect(await countRows(ctx.sequelize, 'workflow_starts', 'workflow_id', workflowIds.emailDelivery(email.id))).toBe(0);
    expect(receiptsTo(buyer)).toHaveLength(0);
  });
});
