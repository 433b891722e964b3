import { randomUUID } from 'node:crypto';
import { emit } from '../../db/outbox';
import { ApiKey, AuditLog, WebhookDeliveryAttempt } from '../../db/models';
import { recordWorkflowStart } from '../../db/workflow-starts';
import { insertEmailMessage, recordEmailAttemptFailure } from '../../db/email-messages';
import { loadConfig } from '../../lib/config';
import { createWebhookAgent } from '../../lib/webhooks/send';
import { LIFECYCLE_STATE, workflowIds } from '../../workflows/messages';
import { insertDeliveryAttempt, insertWebhookEndpoint } from '../fixtures/webhooks';
import { backdateCredit, creditSession } from '../fixtures/payouts';
import { tenantOf } from '../fixtures/workspaces';
import { runCli as runCliIn, singleJson, type CliResult } from '../helpers/cli';
import { http, useTestApi, type TestApi } from '../helpers/context';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver';
import { waitFor } from '../helpers/wait';
import { startTestWorker, type RunningWorker } from '../helpers/worker';

const t = useTestApi();
/** The CLI's main in this process, against the suite's database and Temporal (their variables are in the environment). */
const runCli = (args: string[]): Promise<CliResult> => runCliIn(t.ctx.sequelize, args);

/** The one JSON value `--json` prints. */
async function json<T = unknown>(args: string[]): Promise<T> {
  return singleJson<T>(await runCli([...args, '--json']));
}

async function human(args: string[]): Promise<string> {
  const result = await runCli(args);
  if (result.code !== 0) throw new Error(`CLI exited ${result.code}: ${result.stderr}`);
  return result.stdout;
}

describe('workspace list|show, keys list|revoke', () => {
  it('lists workspaces newest first and shows one by slug or id, with its keys, for a person and as JSON', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'pro' });
    const list = await json<Array<{ accountId: string; plan: string }>>(['workspace', 'list', '--limit', '1000']);
    expect(list.find((w) => w.accountId === ws.accountId)).toMatchObject({ accountId: ws.accountId, slug: ws.slug, plan: 'pro' });
    expect(await human(['workspace', 'list', '--limit', '1000'])).toMatch(new RegExp(`^${ws.accountId}\\s+${ws.slug}\\s+pro`, 'm'));

    const shown = await json<{ accountId: string; apiKeys: Array<{ environment: string; access: string; revokedAt: string | null }> }>(['workspace', 'show', ws.slug!]);
    expect(shown).toMatchObject({ accountId: ws.accountId, plan: 'pro', modules: { fulfillment: false, payment: false } });
    expect(shown.apiKeys.map((k) => `${k.environment}/${k.access}`).sort()).toEqual(['live/publishable', 'live/secret', 'test/publishable', 'test/secret']);
    const text = await human(['workspace', 'show', ws.accountId]);
    expect(text).toContain(`(${ws.accountId})`);
    expect(text).toMatch(/^key_\S+\s+.*\s+live\s+secret\s+sk_live_/m);
    // Never a key's value.
    expect(text).not.toContain(ws.secretKey);

    const missing = await runCli(['workspace', 'show', 'no-such-workspace']);
    expect({ code: missing.code, stdout: missing.stdout }).toEqual({ code: 1, stdout: '' });
    expect(missing.stderr).toMatch(/Workspace no-such-workspace not found/);
    expect((await runCli(['workspace', 'show'])).code).toBe(2);
  });

  it('lists a workspace’s keys of one environment and revokes one: the API refuses it at once, the revoke audited', async () => {
    const ws = await t.ctx.createWorkspace();
    const live = await json<Array<{ id: string; environment: string; access: string }>>(['keys', 'list', '--account', ws.slug!, '--environment', 'live']);
    expect(live.map((k) => `${k.environment}/${k.access}`).sort()).toEqual(['live/publishable', 'live/secret']);

    const [testSecret] = await json<Array<{ id: string }>>(['keys', 'list', '--account', ws.accountId, '--environment', 'test']).then((keys) =>
      keys.filter((k) => (k as { access?: string }).access === 'secret'),
    );
    expect((await http(t.api.baseUrl, 'GET', '/api/v1/account/api-keys', { key: ws.secretKey })).status).toBe(200);
    expect(await human(['keys', 'revoke', testSecret!.id])).toMatch(new RegExp(`^Revoked ${testSecret!.id} `));
    expect((await ApiKey.findByPk(testSecret!.id))?.revokedAt).toEqual(expect.any(Date));
    await waitFor(async () => (await http(t.api.baseUrl, 'GET', '/api/v1/account/api-keys', { key: ws.secretKey })).status === 401);
    expect(await AuditLog.findOne({ where: { accountId: ws.accountId, action: 'api_key.revoked', targetId: testSecret!.id } })).toMatchObject({ actorApiKeyId: null });
    // Again: nothing changes, still answered.
    expect(await json(['keys', 'revoke', testSecret!.id])).toMatchObject({ id: testSecret!.id, revokedAt: expect.any(String) });
    expect((await runCli(['keys', 'revoke', 'key_01JD4X7V1QZ8N6Y3K2M5P9R0TS'])).code).toBe(1);
    expect((await runCli(['keys', 'revoke', 'not-a-key'])).code).toBe(2);
  });
});

describe('migrate status', () => {
  it('reports every migration applied and none pending, without applying anything', async () => {
    const status = await json<{ applied: string[]; pending: string[] }>(['migrate', 'status']);
    expect(status.pending).toEqual([]);
    expect(status.applied.length).toBeGreaterThan(10);
    expect(await human(['migrate', 'status'])).toContain('pending (0):');
  });
});

describe('stuck', () => {
  it('lists starts not made, events not relayed, deliveries and e-mails failing, credits past due, with age and workflow id; progress on stderr', async () => {
    const ws = await t.ctx.createWorkspace();
    const tenant = tenantOf(ws);
    const fileId = `file_${randomUUID().replace(/-/g, '')}`;
    const eventId = await t.ctx.sequelize.transaction(async (tx) => {
      await recordWorkflowStart(tx, tenant, { workflowType: 'fileCleanup', workflowId: workflowIds.fileCleanup(fileId), args: { fileId, storageKey: 'nowhere', delayMs: 3_600_000 } });
      return (await emit(tx, tenant, 'service.product.created.v1', { object: 'product' })).id;
    });
    const emailId = await t.ctx.sequelize.transaction((tx) =>
      insertEmailMessage(tx, tenant, { kind: 'receipt', businessKey: randomUUID(), messageId: `<${randomUUID()}@test>`, toAddress: 'buyer@example.com', subject: 'Receipt', body: 'sealed' }),
    );
    await recordEmailAttemptFailure(t.ctx.sequelize, tenant, emailId!, 'connect ECONNREFUSED');
    const endpoint = (await insertWebhookEndpoint(ws)).row;
    const first = await insertDeliveryAttempt(endpoint, { status: 'retry_scheduled', statusCode: 503, error: 'HTTP 503', createdAt: new Date(Date.now() - 3 * 3_600_000) } as never);
    await insertDeliveryAttempt(endpoint, { eventId: first.eventId, attempt: 2, status: 'retry_scheduled', statusCode: 503, error: 'HTTP 503', nextAttemptAt: new Date(Date.now() + 3_600_000) });
    // A delivery that went through is not stuck.
    await insertDeliveryAttempt(endpoint);
    // In a workspace of its own (its sessions' recorded starts are stuck too): a test credit an hour old (due after
    // a minute) that no sweep released; one just due is not stuck yet.
    const seller = await t.ctx.createWorkspace();
    const { sessionId: overdue } = await creditSession(t.ctx.sequelize, seller, { amount: 700 });
    await backdateCredit(t.ctx.sequelize, overdue, 3_600_000);
    const { sessionId: justDue } = await creditSession(t.ctx.sequelize, seller, { amount: 800 });
    await backdateCredit(t.ctx.sequelize, justDue, 70_000);

    const result = await runCli(['stuck', '--limit', '10000', '--json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^delivery: \d+ found$/m);
    const listed = JSON.parse(result.stdout) as Array<{ kind: string; accountId: string; ageSeconds: number }>;
    const mine = listed.filter((item) => item.accountId === ws.accountId);
    expect(mine).toEqual([
      expect.objectContaining({ kind: 'start', workflowId: workflowIds.fileCleanup(fileId), ageSeconds: expect.any(Number) }),
      expect.objectContaining({ kind: 'event', id: eventId, workflowId: null }),
      expect.objectContaining({ kind: 'delivery', id: `${first.eventId}:${endpoint.id}`, workflowId: workflowIds.webhookDelivery(first.eventId, endpoint.id), detail: expect.stringContaining('attempt 2 failed (HTTP 503)') }),
      expect.objectContaining({ kind: 'email', id: emailId, workflowId: workflowIds.emailDelivery(emailId!), detail: expect.stringContaining('ECONNREFUSED') }),
    ]);
    const credits = listed.filter((item) => item.accountId === seller.accountId && item.kind === 'settlement');
    expect(credits).toEqual([expect.objectContaining({ id: overdue, workflowId: workflowIds.settlementSweep(), detail: expect.stringContaining('not settled') })]);
    // Its age counts from its due time, a minute after the credit.
    expect(credits[0]!.ageSeconds).toBeGreaterThanOrEqual(3_600 - 60 - 5);
    expect(credits[0]!.ageSeconds).toBeLessThanOrEqual(3_600 - 60 + 60);
    // The delivery's age counts from its first failed attempt, three hours ago.
    expect(mine[2]).toMatchObject({ ageSeconds: expect.any(Number) });
    expect((mine[2] as unknown as { ageSeconds: number }).ageSeconds).toBeGreaterThanOrEqual(3 * 3_600 - 60);

    const text = await human(['stuck', '--limit', '10000']);
    expect(text).toMatch(new RegExp(`^delivery\\s+3h( \\d+[ms])?\\s+${ws.accountId}\\s+test\\s+${workflowIds.webhookDelivery(first.eventId, endpoint.id)}`, 'm'));
  });
});

describe('webhooks retry', () => {
  let receiver: HttpsReceiver;
  let worker: RunningWorker;
  let api: TestApi;
  let agent: ReturnType<typeof createWebhookAgent>;
  let healthy = false;

  beforeAll(async () => {
    const certs = await createTestCertificates();
    receiver = await startHttpsReceiver(certs);
    receiver.respond(() => (healthy ? 200 : 503));
    agent = createWebhookAgent({ ca: certs.caCert });
    const taskQueue = `cli-webhooks-${process.pid}-${Date.now()}`;
    const env = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', TEMPORAL_TASK_QUEUE: taskQueue, WEBHOOK_RETRY_SCHEDULE: '1h' };
    api = await t.ctx.startApi(env);
    worker = await startTestWorker(t.ctx.sequelize, taskQueue, { webhookAgent: agent, config: loadConfig({ ...process.env, ...env }) });
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    agent?.destroy();
  });

  it('finds a failing delivery by LifecycleState and retries it from the CLI once the endpoint is fixed', async () => {
    const ws = await t.ctx.createWorkspace();
    const created = await http<{ data: { id: string } }>(api.baseUrl, 'POST', '/api/v1/payment/webhook-endpoints', { key: ws.secretKey, body: { url: receiver.url('/cli') } });
    const sent = await http<{ data: { id: string } }>(api.baseUrl, 'POST', `/api/v1/payment/webhook-endpoints/${created.body.data.id}/test`, { key: ws.secretKey });
    const workflowId = workflowIds.webhookDelivery(sent.body.data.id, created.body.data.id);

    const query = `AccountId = "${ws.accountId}" AND LifecycleState = "retrying"`;
    const found = await waitFor(async () => {
      const ids: string[] = [];
      for await (const run of t.ctx.temporal.workflow.list({ query })) ids.push(run.workflowId);
      return ids.length > 0 && ids;
    });
    expect(found).toEqual([workflowId]);

    healthy = true;
    const result = await runCli(['webhooks', 'retry', workflowId]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Attempt 2 of ${sent.body.data.id} to ${created.body.data.id}: succeeded. The delivery is delivered.\n`);
    expect(result.stderr).toMatch(/retrying the delivery/);
    expect((await t.ctx.temporal.workflow.getHandle(workflowId).describe()).typedSearchAttributes.get(LIFECYCLE_STATE)).toBe('delivered');
    const rows = await WebhookDeliveryAttempt.findAll({ where: { eventId: sent.body.data.id }, order: [['id', 'ASC']] });
    expect(rows.map((r) => [r.attempt, r.status, r.nextAttemptAt?.getTime() ?? null])).toEqual([
      [1, 'retry_scheduled', rows[1]!.scheduledAt.getTime()],
      [2, 'succeeded', null],
    ]);

    // Over now: refused, exit 1.
    const again = await runCli(['webhooks', 'retry', workflowId, '--json']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/INVALID_STATE/);
    expect((await runCli(['webhooks', 'retry', 'webhook-delivery:nonsense'])).code).toBe(2);
  });
});
