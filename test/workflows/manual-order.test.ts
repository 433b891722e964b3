import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ParsedMail } from 'mailparser';
import { QueryTypes } from 'sequelize';
import { createActivities } from '../../activities';
import { createManualOrderActivities } from '../../activities/manual-orders';
import { Delivery, EmailMessage, License, ManualOrder } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { createDownloadLinks } from '../../domain/deliveries/links';
import { planManualOrderFulfillment } from '../../domain/manual-orders/fulfillment-plan';
import { createStarters } from '../../domain/workflow-starters';
import { runRecordedStarts } from '../../domain/workflow-starts';
import { requireEncryptionKey } from '../../lib/config';
import { createMailer, emailMessageId, type Mailer } from '../../lib/email';
import { ACCOUNT_ID, workflowIds, type ManualOrderInput } from '../../workflows/messages';
import type { emailDelivery } from '../../workflows/email-delivery';
import type { manualOrder } from '../../workflows/manual-order';
import { TEST_EMAIL_FROM, testEmailConfig } from '../fixtures/emails';
import { insertManualOrder, manualStore, MANUAL_PAYMENT, orderLine, placeOrder, SHIPPING_ADDRESS, type ManualStore } from '../fixtures/manual-orders';
import { insertProductFile } from '../fixtures/products';
import { tenantOf } from '../fixtures/workspaces';
import { http, useTestApi } from '../helpers/context';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtp-server';
import { useTimeSkippingWorker } from '../helpers/time-skipping';
import { waitFor } from '../helpers/wait';
import { startTestWorker, testActivityDeps, type RunningWorker } from '../helpers/worker';
import { plainHistory } from '../helpers/temporal-codec';

/**
 * Manual orders end to end on real servers: the API places and confirms orders, a real worker on the dev
 * server runs the e-mail deliveries and the `manual-order` fulfillment, and every e-mail is read back from a
 * real SMTP server on loopback. The time-skipping server drives the retries.
 */
jest.setTimeout(120_000);

const taskQueue = `manual-order-${process.pid}`;
const t = useTestApi({ TEMPORAL_TASK_QUEUE: taskQueue, EMAIL_FROM: TEST_EMAIL_FROM });
const config = testEmailConfig;
let smtp: TestSmtpServer;
let mailer: Mailer;
let worker: RunningWorker;

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  mailer = createMailer({ SMTP_URL: smtp.url, EMAIL_FROM: TEST_EMAIL_FROM });
  worker = await startTestWorker(t.ctx.sequelize, taskQueue, { config, mailer });
});
afterAll(async () => {
  await worker?.stop();
  mailer?.close();
  await smtp?.close();
});

const messageIdOf = (tenant: Tenant, businessKey: string) => emailMessageId({ ...tenant, businessKey }, TEST_EMAIL_FROM);
const receivedWith = (messageId: string) => smtp.received.filter((m) => m.parsed.messageId === messageId);
/** The one message with this id, once the SMTP server has it. */
const mailWith = async (messageId: string): Promise<ParsedMail> => (await waitFor(async () => receivedWith(messageId)[0], { timeoutMs: 30_000 })).parsed;

const patch = (store: ManualStore, id: string, body: unknown) => http<{ data: Record<string, unknown> }>(t.api.baseUrl, 'PATCH', `/api/v1/manual-orders/${id}`, { key: store.ws.secretKey, body });

async function productPurchasedOf(orderId: string) {
  return t.ctx.sequelize.query<{ data: Record<string, unknown> }>(`SELECT data FROM events WHERE type = 'product.purchased' AND data->>'manualOrderId' = :orderId ORDER BY id`, {
    type: QueryTypes.SELECT,
    replacements: { orderId },
  });
}

async function stepsOf(orderId: string): Promise<string[]> {
  const rows = await t.ctx.sequelize.query<{ step: string }>('SELECT step FROM manual_order_fulfillment_steps WHERE manual_order_id = :orderId ORDER BY done_at, step', {
    type: QueryTypes.SELECT,
    replacements: { orderId },
  });
  return rows.map((row) => row.step);
}

describe('manual-order e-mails over SMTP (dev server worker)', () => {
  it('sends the payment instructions on placement: headers, both parts, the merchant’s details, every value escaped in HTML', async () => {
    const store = await manualStore(t.ctx);
    const res = await placeOrder(t.api.baseUrl, store.ws, { email: 'Buyer@Example.test', name: '<script>alert(1)</script>', productId: store.ebook.id, quantity: 2 });
    expect(res.status).toBe(201);
    const { id, orderNumber } = res.body.data;
    const messageId = messageIdOf(tenantOf(store.ws), `manual_order_instructions:${id}`);
    const mail = await mailWith(messageId);
    const received = receivedWith(messageId)[0]!;
    expect(received.envelope).toEqual({ from: 'no-reply@acme.example', to: ['Buyer@example.test'] });
    expect(mail.from?.value).toEqual([{ name: 'Acme Shop', address: 'no-reply@acme.example' }]);
    expect(mail.subject).toMatch(new RegExp(`^How to pay for order ${orderNumber} at Workspace `));

    const text = mail.text!;
    expect(text).toContain('Hi <script>alert(1)</script>,');
    expect(text).toContain(`Thank you for your order ${orderNumber}. Please transfer $50.00 to:`);
    expect(text).toContain(`Bank: ${MANUAL_PAYMENT.manualBankName}`);
    expect(text).toContain(`Account number: ${MANUAL_PAYMENT.manualAccountNumber}`);
    expect(text).toContain(`Account holder: ${MANUAL_PAYMENT.manualAccountHolder}`);
    expect(text).toContain(`Reference: ${orderNumber}`);
    expect(text).toContain(MANUAL_PAYMENT.manualPaymentInstructions);

    const html = mail.html as string;
    expect(html).toContain('Hi &lt;script&gt;alert(1)&lt;/script&gt;,');
    expect(html).not.toContain('<script>');
    expect(html).toContain('PT Warung &lt;Budi&gt; &amp; Co');
    expect(html).toContain('Transfer within 24 hours.<br>Quote the order number.');
    expect(html).toContain('<strong>$50.00</strong>');
    // Marked sent once the server accepted it (a moment after the server has it).
    const logged = await waitFor(async () => {
      const row = await EmailMessage.findOne({ where: { accountId: store.ws.accountId, kind: 'manual_order_instructions' } });
      return row?.status === 'sent' && row;
    });
    expect(logged).toMatchObject({ attempts: 1, body: null, messageId });
  });

  it('confirmation: e-mails the buyer and runs manual-order:<mord> once, delivering the digital and licence lines (links and keys in the receipt), never the physical one', async () => {
    const store = await manualStore(t.ctx);
    const file = await insertProductFile(store.ws, store.ebook.id, { fileName: 'ebook & notes.pdf' });
    const res = await placeOrder(t.api.baseUrl, store.ws, {
      email: 'buyer@example.test',
      name: 'Budi',
      items: [
        { productId: store.ebook.id, quantity: 1 },
        { productId: store.app.id, quantity: 1 },
        { productId: store.shirt.id, quantity: 2 },
      ],
      shippingAddress: SHIPPING_ADDRESS,
      metadata: { campaign: 'ramadan' },
    });
    expect(res.status).toBe(201);
    const { id, orderNumber } = res.body.data;
    const tenant = tenantOf(store.ws);

    expect((await patch(store, id, { paymentStatus: 'payment_confirmed' })).status).toBe(200);
    const handle = t.ctx.temporal.workflow.getHandle(workflowIds.manualOrder(id));
    expect(await handle.result()).toBe('fulfilled');
    expect((await handle.describe()).typedSearchAttributes.get(ACCOUNT_ID)).toBe(store.ws.accountId);

    const deliveries = await Delivery.findAll({ where: { manualOrderId: id }, order: [['lineKey', 'ASC']] });
    expect(deliveries.map((d) => [d.lineKey, d.productId, d.kind, d.fileId, d.checkoutSessionId])).toEqual([
      ['1', store.ebook.id, 'download', file.id, null],
      ['2', store.app.id, 'license', null, null],
    ]);
    expect(deliveries[0]!.metadata).toEqual({ campaign: 'ramadan' });
    const licences = await License.findAll({ where: { ...tenant, productId: store.app.id } });
    expect(licences).toHaveLength(1);
    expect(deliveries[1]!.licenseKey).toBe(licences[0]!.key);
    const events = await productPurchasedOf(id);
    expect(events.map((e) => e.data)).toEqual(
      deliveries.map((d) =>
        expect.objectContaining({ deliveryId: d.id, productId: d.productId, manualOrderId: id, checkoutSessionId: null, customerEmail: 'buyer@example.test', metadata: { campaign: 'ramadan', hasShipping: false } }),
      ),
    );
    expect(await stepsOf(id)).toEqual(['delivery:1', 'delivery:2', 'email:receipt']);

    const confirmed = await mailWith(messageIdOf(tenant, `payment_confirmed:${id}`));
    expect(confirmed.subject).toBe(`Payment received for order ${orderNumber}`);
    expect(confirmed.text).toContain(`We have received your payment of $204.00 for order ${orderNumber}.`);
    expect(confirmed.html).toContain('<strong>$204.00</strong>');

    // The receipt was queued by the fulfillment activity; the worker process's start relay starts its delivery (here: by hand).
    const queuedReceipt = (await EmailMessage.findOne({ where: { ...tenant, businessKey: `manual_order_receipt:${id}` } }))!;
    const starters = createStarters(t.ctx.temporal, { taskQueue });
    await runRecordedStarts(t.ctx.sequelize, starters, { workflowIds: [workflowIds.emailDelivery(queuedReceipt.id)] }, { timeoutMs: 5_000 });
    const receipt = await mailWith(messageIdOf(tenant, `manual_order_receipt:${id}`));
    expect(receipt.subject).toMatch(new RegExp(`\\(${orderNumber}\\)$`));
    expect(receipt.text).toContain(licences[0]!.key);
    expect(receipt.html).toContain(licences[0]!.key);
    expect(receipt.html).toContain('ebook &amp; notes.pdf');
    const href = /<a href="([^"]+)"[^>]*>ebook &amp; notes\.pdf<\/a>/.exec(receipt.html as string)?.[1];
    const links = createDownloadLinks({ secret: requireEncryptionKey(config), publicBaseUrl: config.PUBLIC_BASE_URL });
    expect(links.verify(href!.slice(href!.lastIndexOf('/') + 1))).toEqual({ deliveryId: deliveries[0]!.id });

    // A repeated start (a relay that missed its mark) and re-run steps (a retried activity) change nothing.
    expect(await starters.manualOrder({ ...tenant, orderId: id })).toBe(false);
    const activities = createManualOrderActivities({ sequelize: t.ctx.sequelize, config, box: testActivityDeps(t.ctx.sequelize).box });
    for (const step of planManualOrderFulfillment((await ManualOrder.findByPk(id))!.lines)) {
      expect(await activities.runManualOrderFulfillmentStep({ ...tenant, orderId: id, step })).toBe('already_applied');
    }
    expect(await Delivery.count({ where: { manualOrderId: id } })).toBe(2);
    expect(await productPurchasedOf(id)).toHaveLength(2);
    expect(await EmailMessage.count({ where: { accountId: store.ws.accountId, kind: 'checkout_receipt' } })).toBe(1);
    expect(receivedWith(messageIdOf(tenant, `manual_order_receipt:${id}`))).toHaveLength(1);
    expect(receivedWith(messageIdOf(tenant, `payment_confirmed:${id}`))).toHaveLength(1);
  });

  it('a physical-only confirmation mails the buyer and starts no fulfillment; shipping mails the courier and tracking number, escaped', async () => {
    const store = await manualStore(t.ctx);
    const { id, orderNumber } = (await placeOrder(t.api.baseUrl, store.ws, { email: 'buyer@example.test', productId: store.shirt.id, shippingAddress: SHIPPING_ADDRESS })).body.data;
    const tenant = tenantOf(store.ws);
    expect((await patch(store, id, { paymentStatus: 'payment_confirmed' })).status).toBe(200);
    await mailWith(messageIdOf(tenant, `payment_confirmed:${id}`));
    await expect(t.ctx.temporal.workflow.getHandle(workflowIds.manualOrder(id)).describe()).rejects.toThrow();

    expect((await patch(store, id, { fulfillmentStatus: 'shipped', trackingCourier: 'J&T <Express>', trackingNumber: 'JT-0042' })).status).toBe(200);
    const shipped = await mailWith(messageIdOf(tenant, `shipping_notification:${id}`));
    expect(shipped.subject).toBe(`Your order ${orderNumber} has shipped`);
    expect(shipped.text).toContain('Courier: J&T <Express>');
    expect(shipped.text).toContain('Tracking number: JT-0042');
    expect(shipped.html).toContain('Courier: <strong>J&amp;T &lt;Express&gt;</strong>');
    expect(shipped.html).not.toContain('<Express>');
    expect(shipped.html).toContain('Tracking number: <strong>JT-0042</strong>');
  });

  it('greets a buyer whose name is longer than an e-mail greeting takes (255 characters) with its first 200', async () => {
    const store = await manualStore(t.ctx);
    const name = `${'N'.repeat(200)}${'x'.repeat(55)}`;
    const res = await placeOrder(t.api.baseUrl, store.ws, { email: 'buyer@example.test', name, productId: store.ebook.id });
    expect(res.status).toBe(201);
    const mail = await mailWith(messageIdOf(tenantOf(store.ws), `manual_order_instructions:${res.body.data.id}`));
    expect(mail.text).toContain(`Hi ${'N'.repeat(200)},`);
    expect(await ManualOrder.findByPk(res.body.data.id)).toMatchObject({ customerName: name });
  });
});

describe('manual-order retries (time-skipping server)', () => {
  const timeSkipping = useTimeSkippingWorker();

  /** A confirmed order of an e-book (with its file) and a licensed app, written directly: no workflow of it runs elsewhere. */
  async function confirmedOrder() {
    const store = await manualStore(t.ctx);
    await insertProductFile(store.ws, store.ebook.id);
    const order = await insertManualOrder(t.ctx.sequelize, store.ws, store.ebook.id, {
      lines: [orderLine(store.ebook.id), orderLine(store.app.id, { lineKey: '2', productName: 'App', licenseEnabled: true, unitAmount: 9900, amount: 9900 })],
      paymentStatus: 'payment_confirmed',
      paymentConfirmedAt: new Date(),
    });
    const input: ManualOrderInput = { ...tenantOf(store.ws), orderId: order.id };
    return { store, order, input };
  }

  it('fulfils once when an activity that applied its step is retried (its completion was lost): one delivery per line, one licence, one receipt', async () => {
    const { order, input } = await confirmedOrder();
    const activities = createActivities(testActivityDeps(t.ctx.sequelize, { config, mailer }));
    const outcomes: string[] = [];
    let failed = false;
    const real = activities.runManualOrderFulfillmentStep;
    // The step commits, then the attempt fails as if the worker died before reporting it: Temporal retries it.
    activities.runManualOrderFulfillmentStep = async (step) => {
      const outcome = await real(step);
      outcomes.push(`${step.step}:${outcome}`);
      if (step.step === 'delivery:2' && !failed) {
        failed = true;
        throw new Error('worker lost after the step committed');
      }
      return outcome;
    };
    const result = await timeSkipping.run(
      async (env, queue) => {
        const handle = await env.client.workflow.start<typeof manualOrder>('manualOrder', { workflowId: workflowIds.manualOrder(order.id), taskQueue: queue, args: [input] });
        const outcome = await handle.result();
        if (process.env.RECORD_HISTORIES === '1') {
          await writeFile(path.join(__dirname, '../replay/histories/manual-order-retried.json'), JSON.stringify(await plainHistory(handle), null, 2));
        }
        return outcome;
      },
      { activities },
    );
    expect(result).toBe('fulfilled');
    expect(outcomes).toEqual(['delivery:1:applied', 'delivery:2:applied', 'delivery:2:already_applied', 'email:receipt:applied']);
    expect(await Delivery.count({ where: { manualOrderId: order.id } })).toBe(2);
    expect(await License.count({ where: { accountId: input.accountId, environment: input.environment, productId: order.lines[1]!.productId } })).toBe(1);
    expect(await productPurchasedOf(order.id)).toHaveLength(2);
    expect(await EmailMessage.count({ where: { accountId: input.accountId, businessKey: `manual_order_receipt:${order.id}` } })).toBe(1);
  });

  it('sends the confirmation e-mail once although its first attempt was refused (451) and retried a minute later', async () => {
    const store = await manualStore(t.ctx);
    const order = await insertManualOrder(t.ctx.sequelize, store.ws, store.shirt.id);
    const tenant = tenantOf(store.ws);
    // Confirmed through an API whose task queue no worker polls, so the e-mail is sent only by this test's run.
    const api = await t.ctx.startApi({ TEMPORAL_TASK_QUEUE: `unpolled-${process.pid}`, EMAIL_FROM: TEST_EMAIL_FROM });
    const confirm = await http(api.baseUrl, 'PATCH', `/api/v1/manual-orders/${order.id}`, { key: store.ws.secretKey, body: { paymentStatus: 'payment_confirmed' } });
    expect(confirm.status).toBe(200);
    const email = (await EmailMessage.findOne({ where: { accountId: tenant.accountId, kind: 'payment_confirmed' } }))!;
    const messageId = messageIdOf(tenant, `payment_confirmed:${order.id}`);
    smtp.refuseNext(1, 451);
    const outcome = await timeSkipping.run(
      async (env, queue) =>
        env.client.workflow.execute<typeof emailDelivery>('emailDelivery', { workflowId: workflowIds.emailDelivery(email.id), taskQueue: queue, args: [{ ...tenant, emailId: email.id }] }),
      { activities: createActivities(testActivityDeps(t.ctx.sequelize, { config, mailer })) },
    );
    expect(outcome).toBe('sent');
    expect(receivedWith(messageId)).toHaveLength(1);
    expect(await EmailMessage.findByPk(email.id)).toMatchObject({ status: 'sent', attempts: 2 });
    // Another attempt (a retry after the workflow's own) finds it sent and sends nothing.
    expect(await createActivities(testActivityDeps(t.ctx.sequelize, { config, mailer })).sendEmail({ ...tenant, emailId: email.id })).toBe('already_sent');
    expect(receivedWith(messageId)).toHaveLength(1);
  });
});
