import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { QueryTypes } from 'sequelize';
import { createStarters } from '../../domain/workflow-starters';
import { recordStart } from '../../domain/workflow-starts';
import { recordWorkflowStart } from '../../db/workflow-starts';
import { newId } from '../../lib/ids';
import { createLogger } from '../../lib/logger';
import { freePort } from '../../scripts/lib/free-port';
import type { Relay } from '../../worker/relay-loop';
import { startStartRelay } from '../../worker/start-relay';
import { workflowIds } from '../../workflows/messages';
import { countAiRuns } from '../fixtures/ai-runs';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { postMultipart } from '../helpers/multipart';
import { usePrivateDatabase } from '../helpers/private-database';
import { createDevServerEnv } from '../helpers/temporal-env';
import { waitFor } from '../helpers/wait';
import { startTestWorker, type RunningWorker } from '../helpers/worker';

/**
 * Durable starts against a Temporal dev server of this file's own, which it stops and starts again on the same
 * port and database file (the suite's shared server cannot be stopped): API, worker and start relay in this
 * process, on a database of its own so the relay sees only this file's rows.
 */
jest.setTimeout(240_000);

usePrivateDatabase('durable_starts');
const taskQueue = `durable-starts-${process.pid}`;
const PRODUCTS = '/api/v1/storefront/products';
const dbFilename = path.join(tmpdir(), `durable-starts-${process.pid}-${Date.now()}.db`);
const suiteAddress = process.env.TEMPORAL_ADDRESS;
let port: number;
let server: TestWorkflowEnvironment | undefined;
let ctx: TestContext;
let api: TestApi;
let worker: RunningWorker;
let relay: Relay;

const startServer = async () => {
  server = await createDevServerEnv({ server: { port, dbFilename } });
};

beforeAll(async () => {
  port = await freePort();
  await startServer();
  process.env.TEMPORAL_ADDRESS = `127.0.0.1:${port}`;
  ctx = await createTestContext();
  api = await ctx.startApi({ TEMPORAL_TASK_QUEUE: taskQueue });
  worker = await startTestWorker(ctx.sequelize, taskQueue);
  relay = startStartRelay({
    sequelize: ctx.sequelize,
    starters: createStarters(ctx.temporal, { taskQueue }),
    databaseUrl: process.env.DATABASE_URL!,
    logger: createLogger('silent', 'start-relay-test'),
    sweepIntervalMs: 500,
  });
}, 120_000);
afterAll(async () => {
  await relay?.stop();
  await worker?.stop();
  await ctx?.close();
  await server?.teardown();
  process.env.TEMPORAL_ADDRESS = suiteAddress;
  await rm(dbFilename, { force: true });
});

type ProductDto = { id: string; aiStatus: string | null };

async function create(key: string, aiGenerate: boolean): Promise<ProductDto> {
  const res = await http<{ data: ProductDto }>(api.baseUrl, 'POST', PRODUCTS, { key, body: { name: 'Lamp', price: 30, currency: 'USD', type: 'digital', aiGenerate } });
  expect(res.status).toBe(201);
  return res.body.data;
}

const aiStatusOf = async (key: string, id: string) =>
  (await http<{ data: ProductDto }>(api.baseUrl, 'GET', `${PRODUCTS}/${id}`, { key })).body.data.aiStatus;

const pendingStarts = async () =>
  (await ctx.sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM workflow_starts WHERE started_at IS NULL`, { type: QueryTypes.SELECT }))[0]!.n;

describe('durable workflow starts (a private dev server, stopped and restarted)', () => {
  it('starts every workflow recorded while Temporal was down once it is back: AI runs complete, the file cleanup waits', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const plain = await create(ws.secretKey, false);
    const withFile = await create(ws.secretKey, false);
    const uploaded = await postMultipart(api.baseUrl, `${PRODUCTS}/${withFile.id}/files`, ws.secretKey, [{ name: 'file', filename: 'a.pdf', contentType: 'application/pdf', data: 'pdf' }]);
    expect(uploaded.status).toBe(201);
    const fileId = (uploaded.body as { data: { id: string } }).data.id;

    await server!.teardown();
    server = undefined;

    // Every request is answered as if Temporal were up: the start is recorded with the change, not lost with it.
    const [a, b, c, generate, removed] = await Promise.all([
      create(ws.secretKey, true),
      create(ws.secretKey, true),
      create(ws.secretKey, true),
      http(api.baseUrl, 'POST', `${PRODUCTS}/${plain.id}/ai-generate`, { key: ws.secretKey }),
      http(api.baseUrl, 'DELETE', `${PRODUCTS}/${withFile.id}/files/${fileId}`, { key: ws.secretKey }),
    ]);
    expect([a, b, c].map((p) => p.aiStatus)).toEqual(['generating', 'generating', 'generating']);
    expect(generate.status).toBe(202);
    expect(removed.status).toBe(204);
    // Quota is used because these runs will happen.
    expect(await countAiRuns(ctx.sequelize, { accountId: ws.accountId, environment: 'test' })).toBe(4);
    expect(await pendingStarts()).toBe(5);

    await startServer();
    const ids = [a.id, b.id, c.id, plain.id];
    await waitFor(async () => (await Promise.all(ids.map((id) => aiStatusOf(ws.secretKey, id)))).every((s) => s === 'completed'), {
      timeoutMs: 120_000,
      intervalMs: 500,
      describe: () => 'every product aiStatus completed',
    });
    const cleanup = await ctx.temporal.workflow.getHandle(workflowIds.fileCleanup(fileId)).describe();
    expect({ type: cleanup.type, status: cleanup.status.name }).toEqual({ type: 'fileCleanup', status: 'RUNNING' });
    await waitFor(async () => (await pendingStarts()) === 0);
    // Each product was generated exactly once. A start whose acknowledgement was lost (the API's attempt timing out
    // as the server came back) is made again by the relay; for ai-generation that adds at most an empty pass.
    const outcomesOf = async (id: string) => {
      const outcomes: string[] = [];
      for await (const run of ctx.temporal.workflow.list({ query: `WorkflowId = '${workflowIds.aiGeneration(id)}'` })) {
        outcomes.push(...((await ctx.temporal.workflow.getHandle(run.workflowId, run.runId).result()) as string[]));
      }
      return outcomes;
    };
    for (const id of ids) {
      const outcomes = await waitFor(async () => {
        const found = await outcomesOf(id);
        return found.includes('completed') && found;
      });
      expect(outcomes.filter((o) => o === 'completed')).toHaveLength(1);
      expect(outcomes.filter((o) => o !== 'completed' && o !== 'skipped')).toEqual([]);
    }
  });

  it('counts a start that fails for its own reason with its error and a backoff, without holding up the others', async () => {
    const ws = await ctx.createWorkspace();
    const tenant = { accountId: ws.accountId, environment: 'test' as const };
    const fileId = newId('file');
    await ctx.sequelize.transaction(async (tx) => {
      await recordWorkflowStart(tx, tenant, { workflowType: 'noSuchWorkflow', workflowId: 'no-such:1', args: {} });
      await recordStart(tx, tenant, { workflowType: 'fileCleanup', input: { fileId, storageKey: 'k', delayMs: 3_600_000 } });
    });
    const rows = await waitFor(async () => {
      const found = await ctx.sequelize.query<{ workflow_id: string; started: boolean; attempts: number; last_error: string | null; backed_off: boolean }>(
        `SELECT workflow_id, started_at IS NOT NULL AS started, attempts, last_error, next_attempt_at > created_at AS backed_off
           FROM workflow_starts WHERE account_id = :accountId ORDER BY workflow_id`,
        { replacements: tenant, type: QueryTypes.SELECT },
      );
      return found.every((r) => r.started || r.attempts > 0) && found;
    });
    expect(rows).toEqual([
      { workflow_id: workflowIds.fileCleanup(fileId), started: true, attempts: 1, last_error: null, backed_off: false },
      { workflow_id: 'no-such:1', started: false, attempts: expect.any(Number), last_error: 'no durable start is defined for workflow type "noSuchWorkflow"', backed_off: true },
    ]);
    await ctx.temporal.workflow.getHandle(workflowIds.fileCleanup(fileId)).terminate('test over');
  });
});
