import { msToTs } from '@temporalio/common/lib/time';
import { QueryTypes } from 'sequelize';
import { payoutStateQuery, workflowIds } from '../../workflows/messages';
import { creditSession, fundAvailable } from '../fixtures/payouts';
import { http, useTestApi } from '../helpers/context';
import { usePrivateDatabase } from '../helpers/private-database';
import { waitFor } from '../helpers/wait';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

/**
 * End to end on the dev server: the API in this process, `worker/main.ts` (Temporal worker + start relay) as a
 * child process that is SIGKILLed between a payout's moves and while a credit waits for the settlement sweep. Its own namespace, so
 * its schedules never meet other test files', and its own database, so its start relay takes only this file's
 * recorded starts.
 */
jest.setTimeout(300_000);

const namespace = `payouts-e2e-${process.pid}-${Date.now()}`;
const taskQueue = 'payouts-e2e';
const sharedNamespace = process.env.TEMPORAL_NAMESPACE;
usePrivateDatabase('payouts_e2e');
// Before useTestApi's hook: its Temporal client (the API's starts) works in this namespace.
beforeAll(() => {
  process.env.TEMPORAL_NAMESPACE = namespace;
});
afterAll(() => {
  process.env.TEMPORAL_NAMESPACE = sharedNamespace;
});
const t = useTestApi({ TEMPORAL_TASK_QUEUE: taskQueue });

let worker: WorkerProcess | undefined;

const startWorker = () =>
  startWorkerProcess(
    {
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      TEST_SETTLEMENT_DELAY: '20s',
      SETTLEMENT_SWEEP_INTERVAL: '1s',
    },
    { timeoutMs: 150_000 },
  );

beforeAll(async () => {
  await t.ctx.temporal.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  worker = await startWorker();
}, 180_000);
afterAll(async () => {
  await worker?.stop();
});

/** waitFor with the worker's output in the failure, which is what explains a stuck workflow. */
const until = <T>(probe: () => Promise<T | undefined | false>, what: string) =>
  waitFor(probe, { timeoutMs: 120_000, intervalMs: 200, describe: () => `${what}\n--- worker output ---\n${worker?.output() ?? ''}` });

const ledger = (sourceId: string) =>
  t.ctx.sequelize.query<{ type: string; available_delta: string }>('SELECT type, available_delta FROM balance_transactions WHERE source_id = :sourceId ORDER BY type', {
    replacements: { sourceId },
    type: QueryTypes.SELECT,
  });

describe('payouts and settlement with the worker killed (dev server, worker process)', () => {
  it('returns a failed payout’s amount once, and settles once, across a SIGKILL and a re-sent signal', async () => {
    const ws = await t.ctx.createWorkspace();
    const key = ws.secretKey;
    await fundAvailable(t.ctx.sequelize, ws, 10_000);
    // A sale completed now: its credit and its due mark are recorded together; the worker's sweep settles it.
    const { sessionId } = await creditSession(t.ctx.sequelize, ws, { amount: 2_000 });

    expect((await http(t.api.baseUrl, 'PATCH', '/api/v1/payouts/bank-account', { key, body: { bankName: 'Bank', bankAccountNumber: '42', bankAccountHolder: 'H' } })).status).toBe(200);
    const created = await http<{ data: { id: string } }>(t.api.baseUrl, 'POST', '/api/v1/payouts', { key, body: { amount: 4_000, currency: 'USD' } });
    expect(created.status).toBe(201);
    const payoutId = created.body.data.id;
    const payout = t.ctx.temporal.workflow.getHandle(workflowIds.payout(payoutId));
    expect((await http(t.api.baseUrl, 'POST', `/api/v1/payouts/${payoutId}/mark-in-transit`, { key, body: {} })).status).toBe(200);
    await until(async () => (await payout.query(payoutStateQuery)).status === 'in_transit', 'the workflow in_transit');

    // The worker dies between the payout's steps, with the credit not yet due (and a sweep perhaps running).
    await worker!.kill();
    worker = undefined;

    const failed = await http<{ data: { status: string } }>(t.api.baseUrl, 'POST', `/api/v1/payouts/${payoutId}/mark-failed`, { key, body: { failureReason: 'Bounced' } });
    expect(failed.body.data.status).toBe('failed');
    const balance = async () => (await http<{ data: Array<{ available: number; pending: number }> }>(t.api.baseUrl, 'GET', '/api/v1/payouts/balance', { key })).body.data[0];
    // The amount is back at once, whatever the worker does.
    expect(await balance()).toEqual(expect.objectContaining({ available: 10_000, pending: 2_000 }));
    // A relay that crashed before marking its start re-sends the signal: the recorded move is made pending again.
    const [, resent] = await t.ctx.sequelize.query(
      `UPDATE workflow_starts SET started_at = NULL WHERE workflow_type = 'payoutMoved' AND workflow_id = :workflowId AND args->>'status' = 'failed'`,
      { replacements: { workflowId: workflowIds.payout(payoutId) } },
    );
    expect((resent as { rowCount: number }).rowCount).toBe(1);

    worker = await startWorker();
    expect(await payout.result()).toBe('failed');
    await until(
      async () =>
        (
          await t.ctx.sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM workflow_starts WHERE started_at IS NULL`, { type: QueryTypes.SELECT })
        )[0]!.n === 0,
      'every recorded start made',
    );
    expect(await ledger(payoutId)).toEqual([
      { type: 'payout', available_delta: '-4000' },
      { type: 'payout_return', available_delta: '4000' },
    ]);

    await until(async () => (await ledger(sessionId)).length === 2, 'the credit settled by a sweep');
    expect(await ledger(sessionId)).toEqual([
      { type: 'checkout_credit', available_delta: '0' },
      { type: 'settlement', available_delta: '2000' },
    ]);
    expect(await balance()).toEqual(expect.objectContaining({ available: 12_000, pending: 0 }));
  });
});
