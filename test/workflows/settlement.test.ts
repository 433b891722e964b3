import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { QueryTypes } from 'sequelize';
import { createActivities } from '../../activities';
import { appendLedgerEntry } from '../../db/ledger';
import type { Environment } from '../../db/models';
import { settleCheckoutCredit } from '../../domain/payouts/settlement';
import { createStarters } from '../../domain/workflow-starters';
import { startRecordedNow } from '../../domain/workflow-starts';
import { loadConfig } from '../../lib/config';
import { newId } from '../../lib/ids';
import { createLogger } from '../../lib/logger';
import { ACCOUNT_ID, workflowIds, type SettlementInput } from '../../workflows/messages';
import type { settlement } from '../../workflows/settlement';
import { insertCheckoutSessionRow } from '../fixtures/checkout';
import { creditSession } from '../fixtures/payouts';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { useTimeSkippingWorker } from '../helpers/time-skipping';
import { waitFor } from '../helpers/wait';
import { startTestWorker, testActivityDeps } from '../helpers/worker';
import { plainHistory } from '../helpers/temporal-codec';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const DAY_MS = 86_400_000;

async function balanceOf(accountId: string, environment: Environment) {
  const rows = await ctx.sequelize.query<{ pending: number; available: number }>(
    `SELECT pending::float8 AS pending, available::float8 AS available FROM balances WHERE account_id = :accountId AND environment = :environment AND currency = 'USD'`,
    { replacements: { accountId, environment }, type: QueryTypes.SELECT },
  );
  return rows[0];
}

const settlementRows = (sessionId: string) =>
  ctx.sequelize.query<{ pending_delta: string; available_delta: string }>(
    `SELECT pending_delta, available_delta FROM balance_transactions WHERE type = 'settlement' AND source_id = :sessionId`,
    { replacements: { sessionId }, type: QueryTypes.SELECT },
  );

/** A session of `environment` credited with `amount`, as its input to the settlement workflow. */
async function credited(environment: Environment, amount: number): Promise<SettlementInput> {
  const ws = await ctx.createWorkspace();
  const owner = { accountId: ws.accountId, environment };
  const { sessionId } = await creditSession(ctx.sequelize, owner, { amount });
  return { ...owner, sessionId };
}

/** How long the workflow's one timer was set for. */
async function timerMs(handle: WorkflowHandle): Promise<number | undefined> {
  const { events } = await handle.fetchHistory();
  const timer = events?.find((e) => e.timerStartedEventAttributes)?.timerStartedEventAttributes;
  return timer ? tsToMs(timer.startToFireTimeout) : undefined;
}

async function recordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  await writeFile(path.join(__dirname, '../replay/histories', `${name}.json`), JSON.stringify(await plainHistory(handle), null, 2));
}

describe('settlement workflow (time-skipping server)', () => {
  const timeSkipping = useTimeSkippingWorker();
  const run = <R>(fn: Parameters<typeof timeSkipping.run<R>>[0]) => timeSkipping.run(fn, { activities: createActivities(testActivityDeps(ctx.sequelize)) });
  const start = (env: Parameters<Parameters<typeof timeSkipping.run>[0]>[0], taskQueue: string, input: SettlementInput, workflowId = workflowIds.settlement(input.sessionId)) =>
    env.client.workflow.start<typeof settlement>('settlement', { workflowId, taskQueue, args: [input] });

  it('keeps a live credit pending for SETTLEMENT_DELAY (2 days), then moves it to available in one ledger row', async () => {
    const input = await credited('live', 25_000);
    await run(async (env, taskQueue) => {
      const handle = await start(env, taskQueue, input);
      await env.sleep('1d');
      expect(await balanceOf(input.accountId, 'live')).toEqual({ pending: 25_000, available: 0 });
      expect(await handle.result()).toEqual({ settledAmount: 25_000, currency: 'USD' });
      // Two days from the credit's ledger time, less the moment between the credit and the activity's read.
      const timer = (await timerMs(handle))!;
      expect(timer).toBeGreaterThan(2 * DAY_MS - 60_000);
      expect(timer).toBeLessThanOrEqual(2 * DAY_MS);
      await recordHistory(handle, 'settlement');
    });
    expect(await balanceOf(input.accountId, 'live')).toEqual({ pending: 0, available: 25_000 });
    expect(await settlementRows(input.sessionId)).toEqual([{ pending_delta: '-25000', available_delta: '25000' }]);
  });

  it('settles a test credit after TEST_SETTLEMENT_DELAY (1 minute), only what refunds left pending', async () => {
    const input = await credited('test', 1_000);
    await ctx.sequelize.transaction((tx) =>
      appendLedgerEntry(tx, input, { id: newId('txn'), type: 'refund', sourceId: newId('re'), checkoutSessionId: input.sessionId, currency: 'USD', pendingDelta: -300, availableDelta: 0 }),
    );
    await run(async (env, taskQueue) => {
      const handle = await start(env, taskQueue, input);
      expect(await handle.result()).toEqual({ settledAmount: 700, currency: 'USD' });
      const timer = (await timerMs(handle))!;
      expect(timer).toBeGreaterThan(50_000);
      expect(timer).toBeLessThanOrEqual(60_000);
    });
    expect(await balanceOf(input.accountId, 'test')).toEqual({ pending: 0, available: 700 });
  });

  it('counts the delay from the credit, not from the workflow’s start: a start held up 45 s waits only the rest', async () => {
    const input = await credited('test', 800);
    await ctx.sequelize.query(`UPDATE balance_transactions SET created_at = created_at - interval '45 seconds' WHERE checkout_session_id = :sessionId`, {
      replacements: { sessionId: input.sessionId },
    });
    await run(async (env, taskQueue) => {
      const handle = await start(env, taskQueue, input);
      expect(await handle.result()).toEqual({ settledAmount: 800, currency: 'USD' });
      const timer = (await timerMs(handle))!;
      expect(timer).toBeGreaterThan(5_000);
      expect(timer).toBeLessThanOrEqual(15_000);
    });
  });

  it('settles once: a second run for the same session answers what the first moved and writes nothing', async () => {
    const input = await credited('test', 4_000);
    await run(async (env, taskQueue) => {
      expect(await (await start(env, taskQueue, input)).result()).toEqual({ settledAmount: 4_000, currency: 'USD' });
      // As if the start were repeated under another id, or the settling step retried after its commit.
      expect(await (await start(env, taskQueue, input, `${workflowIds.settlement(input.sessionId)}-again`)).result()).toEqual({ settledAmount: 4_000, currency: 'USD' });
    });
    expect(await settlementRows(input.sessionId)).toHaveLength(1);
    expect(await balanceOf(input.accountId, 'test')).toEqual({ pending: 0, available: 4_000 });
  });

  it('writes no settlement row when refunds took all of the pending amount', async () => {
    const input = await credited('test', 500);
    await ctx.sequelize.transaction((tx) =>
      appendLedgerEntry(tx, input, { id: newId('txn'), type: 'refund', sourceId: newId('re'), checkoutSessionId: input.sessionId, currency: 'USD', pendingDelta: -500, availableDelta: 0 }),
    );
    await run(async (env, taskQueue) => {
      expect(await (await start(env, taskQueue, input)).result()).toEqual({ settledAmount: 0, currency: 'USD' });
    });
    expect(await settlementRows(input.sessionId)).toEqual([]);
    expect(await balanceOf(input.accountId, 'test')).toEqual({ pending: 0, available: 0 });
  });

  it('fails at once, without retrying, for a session that has no credit', async () => {
    const ws = await ctx.createWorkspace();
    const session = await insertCheckoutSessionRow(ctx.sequelize, ws, { status: 'completed' });
    const input = { accountId: ws.accountId, environment: 'test' as const, sessionId: session.id };
    const failure = await run(async (env, taskQueue) => (await start(env, taskQueue, input)).result().catch((err: unknown) => err));
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(String((failure as WorkflowFailedError).cause?.cause)).toMatch(/has no checkout credit/);
  });
});

describe('settlement through the durable start (dev server)', () => {
  let api: TestApi;
  const taskQueue = `settlement-${process.pid}-${Date.now()}`;
  beforeAll(async () => {
    api = await ctx.startApi({ TEMPORAL_TASK_QUEUE: taskQueue });
  });

  it('starts settlement:<cs> recorded with the credit; with TEST_SETTLEMENT_DELAY=3s the API shows the amount pending, then available', async () => {
    const worker = await startTestWorker(ctx.sequelize, taskQueue, { config: loadConfig({ ...process.env, TEST_SETTLEMENT_DELAY: '3s' }) });
    try {
      const ws = await ctx.createWorkspace();
      const creditedAt = Date.now();
      const { sessionId, settlementWorkflowId } = await creditSession(ctx.sequelize, ws, { amount: 9_900, settlementStart: true });
      expect(settlementWorkflowId).toBe(workflowIds.settlement(sessionId));
      // What the worker's start relay does with the recorded start (the fulfillment runs in the worker).
      await startRecordedNow({ sequelize: ctx.sequelize, starters: createStarters(ctx.temporal, { taskQueue }), logger: createLogger('silent', 'settlement-test') }, settlementWorkflowId!);
      const balance = async () => (await http<{ data: Array<{ available: number; pending: number }> }>(api.baseUrl, 'GET', '/api/v1/payouts/balance', { key: ws.secretKey })).body.data[0];
      expect(await balance()).toMatchObject({ pending: 9_900, available: 0 });
      const handle = ctx.temporal.workflow.getHandle(settlementWorkflowId!);
      expect((await handle.describe()).typedSearchAttributes.get(ACCOUNT_ID)).toBe(ws.accountId);
      expect(await handle.result()).toEqual({ settledAmount: 9_900, currency: 'USD' });
      expect(Date.now() - creditedAt).toBeGreaterThanOrEqual(3_000);
      await waitFor(async () => (await balance())?.available === 9_900);
      expect(await balance()).toMatchObject({ pending: 0, available: 9_900 });
    } finally {
      await worker.stop();
    }
  });
});

describe('settleCheckoutCredit (the settling step)', () => {
  it('moves the amount once when runs overlap (a retry racing a run that timed out), each answering the same', async () => {
    const input = await credited('test', 3_300);
    const results = await Promise.all(Array.from({ length: 5 }, () => settleCheckoutCredit(ctx.sequelize, input, input.sessionId)));
    expect(results).toEqual(Array(5).fill({ settledAmount: 3_300, currency: 'USD' }));
    expect(await settlementRows(input.sessionId)).toHaveLength(1);
    expect(await balanceOf(input.accountId, 'test')).toEqual({ pending: 0, available: 3_300 });
  });
});
