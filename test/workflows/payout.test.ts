import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { requireEncryptionKey } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import { newId } from '../../lib/ids';
import { ACCOUNT_ID, payoutMoved, payoutStateQuery, workflowIds, type PayoutWorkflowInput } from '../../workflows/messages';
import type { payout } from '../../workflows/payout';
import { fundAvailable, insertPayoutRow } from '../fixtures/payouts';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { useTimeSkippingWorker } from '../helpers/time-skipping';
import { waitFor } from '../helpers/wait';
import { startTestWorker, type RunningWorker } from '../helpers/worker';
import { plainHistory } from '../helpers/temporal-codec';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function recordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  await writeFile(path.join(__dirname, '../replay/histories', `${name}.json`), JSON.stringify(await plainHistory(handle), null, 2));
}

describe('payout workflow (time-skipping server)', () => {
  const timeSkipping = useTimeSkippingWorker();
  const input = (): PayoutWorkflowInput => ({ accountId: 'acc_01JD4X7V1QZ8N6Y3K2M5P9R0TS', environment: 'test', payoutId: newId('pout') });

  it('follows the moves forward only: a repeated or late signal changes nothing; it ends with the final status', async () => {
    await timeSkipping.run(async (env, taskQueue) => {
      const args = input();
      const handle = await env.client.workflow.start<typeof payout>('payout', { workflowId: workflowIds.payout(args.payoutId), taskQueue, args: [args] });
      expect(await handle.query(payoutStateQuery)).toEqual({ status: 'pending' });
      await handle.signal(payoutMoved, { status: 'in_transit' });
      await handle.signal(payoutMoved, { status: 'in_transit' });
      await handle.signal(payoutMoved, { status: 'pending' });
      expect(await handle.query(payoutStateQuery)).toEqual({ status: 'in_transit' });
      await handle.signal(payoutMoved, { status: 'failed' });
      expect(await handle.result()).toBe('failed');
      await recordHistory(handle, 'payout-failed');
    });
  });

  it('takes a final move that overtook the one before it (signals sent by two relays), and waits for nothing else', async () => {
    await timeSkipping.run(async (env, taskQueue) => {
      const args = input();
      const handle = await env.client.workflow.start<typeof payout>('payout', { workflowId: workflowIds.payout(args.payoutId), taskQueue, args: [args] });
      await handle.signal(payoutMoved, { status: 'paid' });
      expect(await handle.result()).toBe('paid');
    });
  });

  it('waits for the merchant as long as it takes: a month without a move keeps it pending', async () => {
    await timeSkipping.run(async (env, taskQueue) => {
      const args = input();
      const handle = await env.client.workflow.start<typeof payout>('payout', { workflowId: workflowIds.payout(args.payoutId), taskQueue, args: [args] });
      await env.sleep('30d');
      expect(await handle.query(payoutStateQuery)).toEqual({ status: 'pending' });
      await handle.signal(payoutMoved, { status: 'cancelled' });
      expect(await handle.result()).toBe('cancelled');
      await recordHistory(handle, 'payout-cancelled');
    });
  });
});

describe('payout workflow through the API (dev server)', () => {
  const taskQueue = `payout-${process.pid}-${Date.now()}`;
  let api: TestApi;
  let worker: RunningWorker;
  beforeAll(async () => {
    api = await ctx.startApi({ TEMPORAL_TASK_QUEUE: taskQueue });
    worker = await startTestWorker(ctx.sequelize, taskQueue);
  });
  afterAll(() => worker?.stop());

  type Payout = { id: string; status: string };
  const post = async (key: string, path: string, body?: unknown) => {
    const res = await http<{ data: Payout }>(api.baseUrl, 'POST', `/api/v1/payouts${path}`, { key, ...(body !== undefined ? { body } : {}) });
    expect(res.status).toBeLessThan(300);
    return res.body.data;
  };
  const stateOf = (id: string) => ctx.temporal.workflow.getHandle(workflowIds.payout(id)).query(payoutStateQuery);

  async function funded() {
    const ws = await ctx.createWorkspace();
    await fundAvailable(ctx.sequelize, ws, 10_000);
    await http(api.baseUrl, 'PATCH', '/api/v1/payouts/bank-account', { key: ws.secretKey, body: { bankName: 'Bank', bankAccountNumber: '42', bankAccountHolder: 'Holder' } });
    return ws;
  }

  it('runs payout:<pout> from the create, tagged with the workspace, through in_transit to paid', async () => {
    const ws = await funded();
    const payoutRow = await post(ws.secretKey, '', { amount: 1_000, currency: 'USD' });
    const handle = ctx.temporal.workflow.getHandle(workflowIds.payout(payoutRow.id));
    expect((await handle.describe()).typedSearchAttributes.get(ACCOUNT_ID)).toBe(ws.accountId);
    expect(await stateOf(payoutRow.id)).toEqual({ status: 'pending' });
    await post(ws.secretKey, `/${payoutRow.id}/mark-in-transit`, { reference: 'TRF-1' });
    await waitFor(async () => (await stateOf(payoutRow.id)).status === 'in_transit');
    await post(ws.secretKey, `/${payoutRow.id}/mark-paid`, {});
    expect(await handle.result()).toBe('paid');
  });

  it('ends failed after mark-failed, and cancelled after cancel', async () => {
    const ws = await funded();
    const failing = await post(ws.secretKey, '', { amount: 1_000, currency: 'USD' });
    await post(ws.secretKey, `/${failing.id}/mark-in-transit`, {});
    await post(ws.secretKey, `/${failing.id}/mark-failed`, { failureReason: 'Account closed' });
    expect(await ctx.temporal.workflow.getHandle(workflowIds.payout(failing.id)).result()).toBe('failed');
    const canceled = await post(ws.secretKey, '', { amount: 1_000, currency: 'USD' });
    await post(ws.secretKey, `/${canceled.id}/cancel`);
    expect(await ctx.temporal.workflow.getHandle(workflowIds.payout(canceled.id)).result()).toBe('cancelled');
  });

  it('is started by a move’s signal-with-start when the payout’s own start never happened', async () => {
    const ws = await funded();
    // A payout row whose recorded start is lost (written directly): the move's durable signal starts the workflow.
    const row = await insertPayoutRow(createCryptoBox(requireEncryptionKey(ctx.config)), ws);
    await post(ws.secretKey, `/${row.id}/mark-in-transit`, {});
    await waitFor(async () => (await stateOf(row.id)).status === 'in_transit');
    const handle = ctx.temporal.workflow.getHandle(workflowIds.payout(row.id));
    expect((await handle.describe()).typedSearchAttributes.get(ACCOUNT_ID)).toBe(ws.accountId);
    await handle.terminate('test over');
  });
});
