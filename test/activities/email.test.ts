import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { createEmailActivities } from '../../activities/email';
import { EmailMessage } from '../../db/models';
import { createMailer, emailMessageId, type Mailer } from '../../lib/email';
import { createLogger } from '../../lib/logger';
import { EMAIL_SEND_LEASE_MS, EMAIL_SEND_RECOVERY_MS } from '../../workflows/email-timing';
import { TEST_EMAIL_FROM, testEmailBox, testEmailConfig, queueTestEmail, receiptRequest } from '../fixtures/emails';
import { createTestContext, type TestContext } from '../helpers/context';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtp-server';

/** The sending activity called directly, against real PostgreSQL and a real SMTP server on loopback. */
let ctx: TestContext;
let smtp: TestSmtpServer;
let mailer: Mailer;
let files: Server;
let filesUrl: string;
let activities: ReturnType<typeof createEmailActivities>;
const FROM = TEST_EMAIL_FROM;
const config = testEmailConfig;
const box = testEmailBox;

beforeAll(async () => {
  ctx = await createTestContext();
  smtp = await startTestSmtpServer();
  mailer = createMailer({ SMTP_URL: smtp.url, EMAIL_FROM: FROM });
  activities = createEmailActivities({ sequelize: ctx.sequelize, box, mailer, logger: createLogger('silent', 'email-test') });
  // Stands in for the download route, so a link read back from the message can be followed.
  files = createServer((req, res) => res.writeHead(req.url === '/d/ebook' ? 200 : 404).end('file'));
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});
afterAll(async () => {
  mailer.close();
  await smtp.close();
  await new Promise((resolve) => files.close(resolve));
  await ctx.close();
});

const receivedWith = (messageId: string) => smtp.received.filter((m) => m.parsed.messageId === messageId);

async function queued(overrides: Parameters<typeof receiptRequest>[0] = {}) {
  const ws = await ctx.createWorkspace();
  const tenant = { accountId: ws.accountId, environment: 'test' as const };
  const request = receiptRequest(overrides);
  const { emailId } = await queueTestEmail(ctx.sequelize, { box, config }, tenant, request);
  const messageId = emailMessageId({ ...tenant, businessKey: request.businessKey }, FROM);
  return { input: { ...tenant, emailId: emailId! }, messageId, tenant, request };
}

describe('sendEmail activity', () => {
  it('sends the rendered message with its fixed Message-ID, both parts and working links, and logs it sent', async () => {
    const { input, messageId } = await queued({ downloadUrl: `${filesUrl}/d/ebook`, buyerName: '<script>alert(1)</script>' });
    expect(await activities.sendEmail(input)).toBe('sent');

    const [mail] = receivedWith(messageId);
    expect(mail).toBeDefined();
    const { parsed, envelope } = mail!;
    expect(envelope).toEqual({ from: 'no-reply@acme.example', to: ['buyer@example.test'] });
    expect(parsed.from?.value).toEqual([{ name: 'Acme Shop', address: 'no-reply@acme.example' }]);
    expect(parsed.to).toMatchObject({ value: [{ address: 'buyer@example.test' }] });
    expect(parsed.subject).toMatch(/^Your receipt from .+ \(cs_test_/);
    expect(parsed.text).toContain('Hi <script>alert(1)</script>,');
    expect(parsed.text).toContain('LIC-1234');
    expect(parsed.html).toContain('Hi &lt;script&gt;alert(1)&lt;/script&gt;,');
    expect(parsed.html).not.toContain('<script>');
    const href = /<a href="([^"]+)"[^>]*>ebook\.pdf<\/a>/.exec(parsed.html as string)?.[1];
    expect(href).toBe(`${filesUrl}/d/ebook`);
    expect((await fetch(href!)).status).toBe(200);

    const row = await EmailMessage.findByPk(input.emailId);
    expect(row).toMatchObject({ status: 'sent', attempts: 1, lastError: null, body: null, messageId, toAddress: 'buyer@example.test' });
    expect(row!.sentAt).toBeInstanceOf(Date);
  });

  it('sends nothing the second time: a retry that finds the row sent returns at once', async () => {
    const { input, messageId } = await queued();
    expect(await activities.sendEmail(input)).toBe('sent');
    expect(await activities.sendEmail(input)).toBe('already_sent');
    expect(receivedWith(messageId)).toHaveLength(1);
    expect((await EmailMessage.findByPk(input.emailId))!.attempts).toBe(1);
  });

  it('records the same business key once: queuing it again writes nothing and starts nothing', async () => {
    const { tenant, request } = await queued();
    expect(await queueTestEmail(ctx.sequelize, { box, config }, tenant, request)).toEqual({ emailId: null, workflowId: null });
    expect(await EmailMessage.count({ where: { ...tenant, businessKey: request.businessKey } })).toBe(1);
  });

  it('throws a retryable error on a temporary refusal (451), keeps it as last_error, and sends on the next attempt', async () => {
    const { input, messageId } = await queued();
    smtp.refuseNext(1, 451);
    const failure = await activities.sendEmail(input).then(() => null, (err: unknown) => err);
    expect(failure).not.toBeInstanceOf(ApplicationFailure);
    expect((failure as Error).message).toMatch(/451/);
    expect(await EmailMessage.findByPk(input.emailId)).toMatchObject({ status: 'pending', attempts: 1, lastError: expect.stringMatching(/451/) });

    expect(await activities.sendEmail(input)).toBe('sent');
    expect(receivedWith(messageId)).toHaveLength(1);
    expect(await EmailMessage.findByPk(input.emailId)).toMatchObject({ status: 'sent', attempts: 2, lastError: null });
  });

  it('fails for good on a permanent refusal (550)', async () => {
    const { input } = await queued();
    smtp.refuseNext(1, 550);
    const failure = await activities.sendEmail(input).then(() => null, (err: unknown) => err);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'EmailRefused', nonRetryable: true });
    await activities.markEmailGivenUp({ ...input, error: 'given up' });
    expect(await EmailMessage.findByPk(input.emailId)).toMatchObject({ status: 'failed', body: null, lastError: expect.stringMatching(/550/) });
    expect(await activities.sendEmail(input)).toBe('already_failed');
  });

  it('does not send while an earlier attempt may still be sending (its lease has not passed)', async () => {
    const { input, messageId } = await queued();
    await EmailMessage.update({ sendingUntil: new Date(Date.now() + 60_000) }, { where: { id: input.emailId } });
    await expect(activities.sendEmail(input)).rejects.toMatchObject({ type: 'EmailBusy', nonRetryable: false });
    expect(receivedWith(messageId)).toHaveLength(0);
  });

  it('sends on the retry Temporal schedules after an attempt a crash lost (its start-to-close, then its backoff)', async () => {
    const { input, messageId } = await queued();
    // Claimed by an attempt that died EMAIL_SEND_RECOVERY_MS ago, when Temporal tries again: its lease as that claim set it.
    await EmailMessage.update({ sendingUntil: new Date(Date.now() - EMAIL_SEND_RECOVERY_MS + EMAIL_SEND_LEASE_MS) }, { where: { id: input.emailId } });
    expect(await activities.sendEmail(input)).toBe('sent');
    expect(receivedWith(messageId)).toHaveLength(1);
  });

  it('fails with a message naming SMTP_URL when it is not set', async () => {
    const { input } = await queued();
    const unset = createEmailActivities({ sequelize: ctx.sequelize, box, mailer: createMailer({ SMTP_URL: undefined, EMAIL_FROM: FROM }), logger: createLogger('silent', 'email-test') });
    await expect(unset.sendEmail(input)).rejects.toThrow(/SMTP_URL is not set/);
    expect(await EmailMessage.findByPk(input.emailId)).toMatchObject({ status: 'pending', lastError: expect.stringMatching(/SMTP_URL/) });
  });
});
