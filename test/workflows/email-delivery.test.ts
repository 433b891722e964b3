import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { createActivities } from '../../activities';
import { EmailMessage } from '../../db/models';
import { createStarters } from '../../domain/workflow-starters';
import { startRecordedNow } from '../../domain/workflow-starts';
import { createMailer, emailMessageId, type Mailer } from '../../lib/email';
import { createLogger } from '../../lib/logger';
import { ACCOUNT_ID, workflowIds, type EmailDeliveryInput } from '../../workflows/messages';
import type { emailDelivery } from '../../workflows/email-delivery';
import { TEST_EMAIL_FROM, testEmailBox, testEmailConfig, queueTestEmail, receiptRequest } from '../fixtures/emails';
import { createTestContext, type TestContext } from '../helpers/context';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtp-server';
import { useTimeSkippingWorker } from '../helpers/time-skipping';
import { startTestWorker, testActivityDeps } from '../helpers/worker';
import { plainHistory } from '../helpers/temporal-codec';

let ctx: TestContext;
let smtp: TestSmtpServer;
let mailer: Mailer;
const FROM = TEST_EMAIL_FROM;
const config = testEmailConfig;
const box = testEmailBox;

beforeAll(async () => {
  ctx = await createTestContext();
  smtp = await startTestSmtpServer();
  mailer = createMailer({ SMTP_URL: smtp.url, EMAIL_FROM: FROM });
});
afterAll(async () => {
  mailer.close();
  await smtp.close();
  await ctx.close();
});

async function queued(): Promise<{ input: EmailDeliveryInput; messageId: string; workflowId: string }> {
  const ws = await ctx.createWorkspace();
  const tenant = { accountId: ws.accountId, environment: 'test' as const };
  const request = receiptRequest();
  const { emailId, workflowId } = await queueTestEmail(ctx.sequelize, { box, config }, tenant, request);
  return { input: { ...tenant, emailId: emailId! }, messageId: emailMessageId({ ...tenant, businessKey: request.businessKey }, FROM), workflowId: workflowId! };
}

const receivedWith = (messageId: string) => smtp.received.filter((m) => m.parsed.messageId === messageId);

/** The attempt number of the `sendEmail` run that settled (the history records only the last attempt's start). */
async function lastAttemptNumber(handle: WorkflowHandle): Promise<number> {
  const { events } = await handle.fetchHistory();
  const started = (events ?? []).find((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED);
  return started?.activityTaskStartedEventAttributes?.attempt ?? 0;
}

async function recordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  await writeFile(path.join(__dirname, '../replay/histories', `${name}.json`), JSON.stringify(await plainHistory(handle), null, 2));
}

describe('email-delivery workflow (time-skipping server)', () => {
  const timeSkipping = useTimeSkippingWorker();
  const run = <R>(fn: Parameters<typeof timeSkipping.run<R>>[0]) =>
    timeSkipping.run(fn, { activities: createActivities(testActivityDeps(ctx.sequelize, { config, mailer })) });

  it('retries a temporarily refused message with backoff (1 minute, then 2) and sends it once', async () => {
    const { input, messageId, workflowId } = await queued();
    smtp.refuseNext(2, 451);
    const { handle, outcome } = await run(async (env, taskQueue) => {
      const handle = await env.client.workflow.start<typeof emailDelivery>('emailDelivery', { workflowId, taskQueue, args: [input] });
      return { handle, outcome: await handle.result() };
    });
    expect(outcome).toBe('sent');
    expect(receivedWith(messageId)).toHaveLength(1);
    expect(await EmailMessage.findByPk(input.emailId)).toMatchObject({ status: 'sent', attempts: 3, lastError: null });
    expect(await lastAttemptNumber(handle)).toBe(3);
    const { events } = await handle.fetchHistory();
    const [scheduled, completed] = [events![0], events!.at(-1)].map((e) => tsToMs(e!.eventTime));
    expect(completed! - scheduled!).toBeGreaterThanOrEqual(3 * 60_000);
    expect(completed! - scheduled!).toBeLessThan(10 * 60_000);
    await recordHistory(handle, 'email-delivery-retried');
  });

  it('marks the message failed at once when the server refuses it for good (550)', async () => {
    const { input, messageId, workflowId } = await queued();
    smtp.refuseNext(1, 550);
    const outcome = await run(async (env, taskQueue) => {
      const handle = await env.client.workflow.start<typeof emailDelivery>('emailDelivery', { workflowId, taskQueue, args: [input] });
      const result = await handle.result();
      await recordHistory(handle, 'email-delivery-refused');
      return result;
    });
    expect(outcome).toBe('failed');
    expect(receivedWith(messageId)).toHaveLength(0);
    expect(await EmailMessage.findByPk(input.emailId)).toMatchObject({ status: 'failed', attempts: 1, body: null, lastError: expect.stringMatching(/550/) });
  });

  it('gives up after a day of temporary failures and marks the message failed', async () => {
    const { input, messageId, workflowId } = await queued();
    smtp.refuseNext(100, 451);
    const { outcome, elapsedMs } = await run(async (env, taskQueue) => {
      const handle = await env.client.workflow.start<typeof emailDelivery>('emailDelivery', { workflowId, taskQueue, args: [input] });
      const result = await handle.result();
      await recordHistory(handle, 'email-delivery-given-up');
      const { events } = await handle.fetchHistory();
      return { outcome: result, elapsedMs: tsToMs(events!.at(-1)!.eventTime) - tsToMs(events![0]!.eventTime) };
    });
    smtp.acceptAll();
    expect(outcome).toBe('failed');
    expect(receivedWith(messageId)).toHaveLength(0);
    // Temporal schedules no retry that would end past the 24-hour schedule-to-close: the last one is within the day.
    expect(elapsedMs).toBeGreaterThan(22 * 3_600_000);
    expect(elapsedMs).toBeLessThanOrEqual(24 * 3_600_000);
    const row = await EmailMessage.findByPk(input.emailId);
    expect(row).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/451/) });
    // 1m, 2m, 4m … 32m, then hourly: about 28 attempts in a day.
    expect(row!.attempts).toBeGreaterThan(20);
    expect(row!.attempts).toBeLessThan(35);
  });
});

describe('email delivery through the durable start (dev server)', () => {
  it('starts email-delivery:<eml> after the queuing transaction commits, tagged with the workspace, and the worker sends it', async () => {
    const taskQueue = `email-delivery-${Date.now()}`;
    const worker = await startTestWorker(ctx.sequelize, taskQueue, { config, mailer });
    try {
      const { input, messageId, workflowId } = await queued();
      expect(workflowId).toBe(workflowIds.emailDelivery(input.emailId));
      const starters = createStarters(ctx.temporal, { taskQueue });
      await startRecordedNow({ sequelize: ctx.sequelize, starters, logger: createLogger('silent', 'email-test') }, workflowId);
      const handle = ctx.temporal.workflow.getHandle(workflowId);
      expect(await handle.result()).toBe('sent');
      expect((await handle.describe()).typedSearchAttributes.get(ACCOUNT_ID)).toBe(input.accountId);
      expect(receivedWith(messageId)).toHaveLength(1);
    } finally {
      await worker.stop();
    }
  });
});
