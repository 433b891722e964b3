import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { QueryTypes } from 'sequelize';
import { createActivities } from '../../activities';
import { appendLedgerEntry } from '../../db/ledger';
import { MARK_UNSETTLED_CREDITS } from '../../db/migrations/0032-settlement-dues';
import type { Environment } from '../../db/models';
import { settleCheckoutCredit, settleDueCredits } from '../../domain/payouts/settlement';
import { createStarters } from '../../domain/workflow-starters';
import { recordStart, startRecordedNow } from '../../domain/workflow-starts';
import { loadConfig, type Config } from '../../lib/config';
import { newId } from '../../lib/ids';
import { createLogger } from '../../lib/logger';
import { ensureSettlementSweepSchedule } from '../../worker/schedules';
import { ACCOUNT_ID, SCHEDULE_IDS, workflowIds, type SettlementInput } from '../../workflows/messages';
import type { settlement } from '../../workflows/settlement';
import type { settlementSweep } from '../../workflows/settlement-sweep';
import { insertCheckoutSessionRow } from '../fixtures/checkout';
import { backdateCredit, creditSession } from '../fixtures/payouts';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { usePrivateDatabase } from '../helpers/private-database';
import { useTimeSkippingWorker } from '../helpers/time-skipping';
import { waitFor } from '../helpers/wait';
import { startTestWorker, testActivityDeps } from '../helpers/worker';
import { plainHistory } from '../helpers/temporal-codec';

let ctx: TestContext;

// A sweep settles every due credit in its database: a database of this file's own keeps it off other files' credits.
usePrivateDatabase('settlement');
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

const dueMarks = async (sessionId: string) =>
  (await ctx.sequelize.query('SELECT 1 FROM settlement_dues WHERE checkout_session_id = :sessionId', { replacements: { sessionId }, type: QueryTypes.SELECT })).length;

const logger = createLogger('silent', 'settlement-test');
/** One sweep, as the activity runs it, with this file's configuration unless `config` says otherwise. */
const sweep = (options: Parameters<typeof settleDueCredits>[1] = {}, config: Config = ctx.config) => settleDueCredits({ sequelize: ctx.sequelize, config, logger }, options);

/** A refund of `amount` out of the session's pending part, as checkout's refund writes it before settlement. */
const refundPending = (input: SettlementInput, amount: number) =>
  ctx.sequelize.transaction((tx) =>
    appendLedgerEntry(tx, input, { id: newId('txn'), type: 'refund', sourceId: newId('re'), checkoutSessionId: input.sessionId, currency: 'USD', pendingDelta: -amount, availableDelta: 0 }),
  );

async function recordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  await writeFile(path.join(__dirname, '../replay/histories', `${name}.json`), JSON.stringify(await plainHistory(handle), null, 2));
}

describe('settlement:<cs>, the per-session workflow of sales completed before the sweep (time-skipping server)', () => {
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
    await refundPending(input, 300);
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
    await backdateCredit(ctx.sequelize, input.sessionId, 45_000);
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
    await refundPending(input, 500);
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

  it('shares a credit with the sweep and one ledger row results: the sweep settles while the old run sleeps, the run then answers what it moved', async () => {
    const input = await credited('test', 2_600);
    await run(async (env, taskQueue) => {
      const handle = await start(env, taskQueue, input);
      await waitFor(async () => (await timerMs(handle)) !== undefined);
      await backdateCredit(ctx.sequelize, input.sessionId, 61_000);
      await sweep();
      expect(await settlementRows(input.sessionId)).toEqual([{ pending_delta: '-2600', available_delta: '2600' }]);
      expect(await handle.result()).toEqual({ settledAmount: 2_600, currency: 'USD' });
    });
    expect(await settlementRows(input.sessionId)).toHaveLength(1);
    expect(await balanceOf(input.accountId, 'test')).toEqual({ pending: 0, available: 2_600 });
  });

  it('shares a credit with the sweep the other way round: a credit the old run settled is no longer due, and a later sweep leaves it alone', async () => {
    const input = await credited('test', 1_700);
    await run(async (env, taskQueue) => {
      expect(await (await start(env, taskQueue, input)).result()).toEqual({ settledAmount: 1_700, currency: 'USD' });
    });
    expect(await dueMarks(input.sessionId)).toBe(0);
    await backdateCredit(ctx.sequelize, input.sessionId, 10 * 60_000);
    await sweep();
    expect(await settlementRows(input.sessionId)).toHaveLength(1);
    expect(await balanceOf(input.accountId, 'test')).toEqual({ pending: 0, available: 1_700 });
  });
});

describe('settleDueCredits (the sweep)', () => {
  it('settles a due credit once, and only once however often it sweeps', async () => {
    const input = await credited('test', 1_200);
    await backdateCredit(ctx.sequelize, input.sessionId, 61_000);
    expect((await sweep()).settled).toBeGreaterThanOrEqual(1);
    await sweep();
    expect(await settlementRows(input.sessionId)).toEqual([{ pending_delta: '-1200', available_delta: '1200' }]);
    expect(await balanceOf(input.accountId, 'test')).toEqual({ pending: 0, available: 1_200 });
    expect(await dueMarks(input.sessionId)).toBe(0);
  });

  it('touches no credit before its environment’s delay has passed: a test credit 50 s old, a live one a day old', async () => {
    const young = await credited('test', 300);
    await backdateCredit(ctx.sequelize, young.sessionId, 50_000);
    const live = await credited('live', 400);
    await backdateCredit(ctx.sequelize, live.sessionId, 86_400_000);
    await sweep();
    expect(await settlementRows(young.sessionId)).toEqual([]);
    expect(await settlementRows(live.sessionId)).toEqual([]);
    expect(await balanceOf(young.accountId, 'test')).toEqual({ pending: 300, available: 0 });
    expect(await balanceOf(live.accountId, 'live')).toEqual({ pending: 400, available: 0 });
    // Just past the delay, each settles.
    await backdateCredit(ctx.sequelize, young.sessionId, 11_000);
    await backdateCredit(ctx.sequelize, live.sessionId, 86_401_000);
    await sweep();
    expect(await balanceOf(young.accountId, 'test')).toEqual({ pending: 0, available: 300 });
    expect(await balanceOf(live.accountId, 'live')).toEqual({ pending: 0, available: 400 });
  });

  it('reads the delay from the configuration, by the database clock: with TEST_SETTLEMENT_DELAY=5m a credit 4 minutes old stays pending', async () => {
    const config = loadConfig({ ...process.env, TEST_SETTLEMENT_DELAY: '5m' });
    const input = await credited('test', 900);
    await backdateCredit(ctx.sequelize, input.sessionId, 4 * 60_000);
    await sweep({}, config);
    expect(await settlementRows(input.sessionId)).toEqual([]);
    await backdateCredit(ctx.sequelize, input.sessionId, 61_000);
    await sweep({}, config);
    expect(await settlementRows(input.sessionId)).toHaveLength(1);
  });

  it('two sweeps racing write one settlement row per credit', async () => {
    const inputs = await Promise.all(Array.from({ length: 12 }, (_, i) => credited('test', 100 + i)));
    for (const input of inputs) await backdateCredit(ctx.sequelize, input.sessionId, 61_000);
    const results = await Promise.all([sweep({ batchSize: 5 }), sweep({ batchSize: 5 })]);
    expect(results.map((r) => r.failed)).toEqual([0, 0]);
    for (const [i, input] of inputs.entries()) {
      expect(await settlementRows(input.sessionId)).toEqual([{ pending_delta: String(-(100 + i)), available_delta: String(100 + i) }]);
      expect(await balanceOf(input.accountId, 'test')).toEqual({ pending: 0, available: 100 + i });
    }
  });

  it('settles only what refunds left pending, and drops a credit refunds took whole without writing a row', async () => {
    const partly = await credited('test', 1_000);
    await refundPending(partly, 300);
    const wholly = await credited('test', 500);
    await refundPending(wholly, 500);
    for (const input of [partly, wholly]) await backdateCredit(ctx.sequelize, input.sessionId, 61_000);
    await sweep();
    expect(await settlementRows(partly.sessionId)).toEqual([{ pending_delta: '-700', available_delta: '700' }]);
    expect(await balanceOf(partly.accountId, 'test')).toEqual({ pending: 0, available: 700 });
    expect(await settlementRows(wholly.sessionId)).toEqual([]);
    // Not due any more: a sweep does not read it again and again.
    expect(await dueMarks(wholly.sessionId)).toBe(0);
  });

  it('goes through the due credits in batches, earliest due first across environments, and stops at its time budget', async () => {
    await sweep();
    const test = await credited('test', 10);
    await backdateCredit(ctx.sequelize, test.sessionId, 61_000);
    const live = await credited('live', 20);
    await backdateCredit(ctx.sequelize, live.sessionId, 2 * 86_400_000 + 600_000);
    expect(await sweep({ batchSize: 1, budgetMs: 0 })).toEqual({ settled: 1, nothingPending: 0, failed: 0, budgetSpent: true });
    expect(await settlementRows(live.sessionId)).toHaveLength(1);
    expect(await settlementRows(test.sessionId)).toEqual([]);
    const rest = await Promise.all(Array.from({ length: 4 }, () => credited('test', 30)));
    for (const input of rest) await backdateCredit(ctx.sequelize, input.sessionId, 61_000);
    expect(await sweep({ batchSize: 2 })).toEqual({ settled: 5, nothingPending: 0, failed: 0, budgetSpent: false });
    for (const input of [test, ...rest]) expect(await settlementRows(input.sessionId)).toHaveLength(1);
  });
});

describe('settlementSweep workflow (time-skipping server)', () => {
  const timeSkipping = useTimeSkippingWorker();

  it('runs one sweep and answers what it did', async () => {
    await sweep();
    const input = await credited('test', 6_100);
    await backdateCredit(ctx.sequelize, input.sessionId, 61_000);
    await timeSkipping.run(
      async (env, taskQueue) => {
        const handle = await env.client.workflow.start<typeof settlementSweep>('settlementSweep', { workflowId: workflowIds.settlementSweep(), taskQueue });
        expect(await handle.result()).toEqual({ settled: 1, nothingPending: 0, failed: 0, budgetSpent: false });
        await recordHistory(handle, 'settlement-sweep');
      },
      { activities: createActivities(testActivityDeps(ctx.sequelize)) },
    );
    expect(await balanceOf(input.accountId, 'test')).toEqual({ pending: 0, available: 6_100 });
  });
});

describe('settlement through the sweep schedule (dev server)', () => {
  let api: TestApi;
  const taskQueue = `settlement-${process.pid}-${Date.now()}`;
  beforeAll(async () => {
    api = await ctx.startApi({ TEMPORAL_TASK_QUEUE: taskQueue });
  });

  it('with TEST_SETTLEMENT_DELAY=3s and a 1s sweep the API shows a new sale pending, then available within a sweep of its due time; a start recorded before the sweep still runs, and both settle once', async () => {
    const worker = await startTestWorker(ctx.sequelize, taskQueue, { config: loadConfig({ ...process.env, TEST_SETTLEMENT_DELAY: '3s' }) });
    const schedule = ctx.temporal.schedule.getHandle(SCHEDULE_IDS.settlementSweep);
    try {
      // A worker started with another interval made the schedule; this worker's start brings it to its own.
      await ensureSettlementSweepSchedule(ctx.temporal, { taskQueue: `${taskQueue}-before`, intervalMs: 60_000 });
      await ensureSettlementSweepSchedule(ctx.temporal, { taskQueue, intervalMs: 1_000 });
      const described = await schedule.describe();
      expect(described.spec.intervals?.map((i) => i.every)).toEqual([1_000]);
      expect(described.action).toMatchObject({ workflowType: 'settlementSweep', taskQueue });
      expect(described.policies.overlap).toBe('SKIP');
      const ws = await ctx.createWorkspace();
      const tenant = { accountId: ws.accountId, environment: 'test' as const };
      const creditedAt = Date.now();
      const { sessionId } = await creditSession(ctx.sequelize, ws, { amount: 9_900 });
      // A sale completed before the deploy: its `settlement:<cs>` start was recorded with the credit.
      const { sessionId: oldSessionId } = await creditSession(ctx.sequelize, ws, { amount: 100 });
      const oldWorkflowId = await ctx.sequelize.transaction((tx) => recordStart(tx, tenant, { workflowType: 'settlement', input: { ...tenant, sessionId: oldSessionId } }));
      expect(oldWorkflowId).toBe(workflowIds.settlement(oldSessionId));
      // What the worker's start relay does with the recorded start.
      await startRecordedNow({ sequelize: ctx.sequelize, starters: createStarters(ctx.temporal, { taskQueue }), logger }, oldWorkflowId);

      const balance = async () => (await http<{ data: Array<{ available: number; pending: number }> }>(api.baseUrl, 'GET', '/api/v1/payouts/balance', { key: ws.secretKey })).body.data[0];
      expect(await balance()).toMatchObject({ pending: 10_000, available: 0 });
      await waitFor(async () => (await settlementRows(sessionId)).length > 0, { timeoutMs: 30_000 });
      const settledAfterMs = Date.now() - creditedAt;
      expect(settledAfterMs).toBeGreaterThanOrEqual(3_000);
      // Due at 3 s, swept every second: well before a minute on a loaded machine.
      expect(settledAfterMs).toBeLessThan(15_000);
      const old = ctx.temporal.workflow.getHandle(oldWorkflowId);
      expect((await old.describe()).typedSearchAttributes.get(ACCOUNT_ID)).toBe(ws.accountId);
      expect(await old.result()).toEqual({ settledAmount: 100, currency: 'USD' });
      expect(await balance()).toMatchObject({ pending: 0, available: 10_000 });
      expect(await settlementRows(sessionId)).toHaveLength(1);
      expect(await settlementRows(oldSessionId)).toHaveLength(1);
      // The new sale started no settlement workflow of its own.
      await expect(ctx.temporal.workflow.getHandle(workflowIds.settlement(sessionId)).describe()).rejects.toThrow(/not found/i);
    } finally {
      await schedule.delete().catch(() => undefined);
      await worker.stop();
    }
  });
});

describe('migration 0032 (credits recorded before the sweep)', () => {
  it('marks every credit not yet settled, at its own ledger time, and no settled one', async () => {
    const unsettled = await credited('test', 100);
    await backdateCredit(ctx.sequelize, unsettled.sessionId, 3_600_000);
    const settled = await credited('test', 200);
    await settleCheckoutCredit(ctx.sequelize, settled, settled.sessionId);
    const ids = [unsettled.sessionId, settled.sessionId];
    // As before the migration: no marks. Rolled back, so no other test's marks are touched.
    const transaction = await ctx.sequelize.transaction();
    let marks: Array<{ checkout_session_id: string; at_credit: boolean }>;
    try {
      await ctx.sequelize.query('DELETE FROM settlement_dues WHERE checkout_session_id IN (:ids)', { replacements: { ids }, transaction });
      await ctx.sequelize.query(MARK_UNSETTLED_CREDITS, { transaction });
      marks = await ctx.sequelize.query(
        `SELECT d.checkout_session_id, d.credited_at = c.created_at AS at_credit
           FROM settlement_dues d JOIN balance_transactions c ON c.type = 'checkout_credit' AND c.source_id = d.checkout_session_id
          WHERE d.checkout_session_id IN (:ids)`,
        { replacements: { ids }, type: QueryTypes.SELECT, transaction },
      );
    } finally {
      await transaction.rollback();
    }
    expect(marks).toEqual([{ checkout_session_id: unsettled.sessionId, at_credit: true }]);
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
