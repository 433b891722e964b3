import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import { Payout } from '../../db/models';
import { loadConfig } from '../../lib/config';
import { SANDBOX_TEST_VALUES, type PaymentSandbox } from '../../lib/payment-provider/sandbox';
import { workflowIds } from '../../workflows/messages';
import { fundAvailable } from '../fixtures/payouts';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { sandboxEnv, startTestSandbox } from '../helpers/payment-sandbox';
import { waitFor } from '../helpers/wait';
import { startTestWorker, type RunningWorker } from '../helpers/worker';
import { plainHistory } from '../helpers/temporal-codec';

// Payouts in provider mode against the sandbox provider over loopback sockets, with a real worker: the
// disbursement submitted as the payout workflow's first step, status following the provider's callbacks.

const PAYOUTS = '/api/v1/payouts';
type PayoutDto = { id: string; status: string; reference: string | null; failureReason: string | null };

let ctx: TestContext;
let api: TestApi;
let sandbox: PaymentSandbox;
let worker: RunningWorker;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  ctx = await createTestContext();
  const taskQueue = `payouts-provider-${process.pid}-${Date.now()}`;
  const env = { ...sandboxEnv(sandbox.baseUrl), TEMPORAL_TASK_QUEUE: taskQueue };
  api = await ctx.startApi(env);
  sandbox.callbackUrl = `${api.baseUrl}/api/v1/payment/provider-webhooks`;
  worker = await startTestWorker(ctx.sequelize, taskQueue, { config: loadConfig({ ...process.env, ...env }) });
});
afterAll(async () => {
  await worker?.stop();
  await ctx.close();
  await sandbox.close();
});

async function paymentModule(key: string, enabled: boolean) {
  expect((await http(api.baseUrl, 'POST', '/api/v1/modules', { key, body: { module: 'payment', enabled } })).status).toBe(200);
}

async function funded(accountNumber = '1234567890', bankCode = 'BCA') {
  const ws = await ctx.createWorkspace();
  await fundAvailable(ctx.sequelize, ws, 100_000, 'IDR');
  const bank = await http(api.baseUrl, 'PATCH', `${PAYOUTS}/bank-account`, { key: ws.secretKey, body: { bankCode, bankName: 'Bank Central Asia', bankAccountNumber: accountNumber, bankAccountHolder: 'Holder' } });
  expect(bank.status).toBe(200);
  return ws;
}

async function createPayout(key: string, amount = 40_000) {
  const res = await http<{ data: PayoutDto }>(api.baseUrl, 'POST', PAYOUTS, { key, body: { amount, currency: 'IDR' } });
  expect(res.status).toBe(201);
  return res.body.data;
}

const available = async (key: string) => {
  const res = await http<{ data: { currency: string; available: number }[] }>(api.baseUrl, 'GET', `${PAYOUTS}/balance`, { key });
  return res.body.data.find((b) => b.currency === 'IDR')!.available;
};

const payoutEvents = (accountId: string) =>
  ctx.sequelize.query<{ type: string; data: PayoutDto }>(`SELECT type, data FROM events WHERE account_id = $1 AND type LIKE 'payout.%' ORDER BY created_at, id`, {
    bind: [accountId],
    type: QueryTypes.SELECT,
  });

const inTransit = (id: string) =>
  waitFor(async () => {
    const row = await Payout.findByPk(id);
    return row?.status === 'in_transit' && row;
  });

const disbursementOf = (payoutId: string) => [...sandbox.disbursements.values()].filter((d) => d.external_id === payoutId);

describe('payouts in provider mode', () => {
  it('submits the disbursement (payout.initiated), refuses the mark routes, and is paid by the provider callback', async () => {
    const ws = await funded();
    await paymentModule(ws.secretKey, true);
    const created = await createPayout(ws.secretKey);
    expect(created.status).toBe('pending');
    expect((await Payout.findByPk(created.id))!.backend).toBe('provider');

    const row = await inTransit(created.id);
    const [disbursement, ...more] = disbursementOf(created.id);
    expect(more).toEqual([]);
    expect(disbursement).toMatchObject({ id: row.providerDisbursementId, amount: 40_000, bank_code: 'BCA', account_number: '1234567890', account_holder_name: 'Holder', status: 'PENDING' });
    expect(row.reference).toBe(row.providerDisbursementId);
    expect(await available(ws.secretKey)).toBe(60_000);

    for (const [route, body] of [
      ['mark-in-transit', {}],
      ['mark-paid', { reference: 'TRF-1' }],
      ['mark-failed', { failureReason: 'Closed' }],
    ] as const) {
      expectError(await http(api.baseUrl, 'POST', `${PAYOUTS}/${created.id}/${route}`, { key: ws.secretKey, body }), 409, 'INVALID_STATE');
    }
    expect(await Payout.findByPk(created.id)).toMatchObject({ status: 'in_transit', reference: row.providerDisbursementId, failureReason: null });
    // Cancel is for a pending payout only; this one is with the provider.
    expectError(await http(api.baseUrl, 'POST', `${PAYOUTS}/${created.id}/cancel`, { key: ws.secretKey }), 409, 'INVALID_STATE');

    await sandbox.settleDisbursements();
    const handle = ctx.temporal.workflow.getHandle(workflowIds.payout(created.id));
    expect(await handle.result()).toBe('paid');
    // The provider branch's history, for test/replay (RECORD_HISTORIES=1).
    if (process.env.RECORD_HISTORIES === '1') await writeFile(path.join(__dirname, '../replay/histories/payout-provider-paid.json'), JSON.stringify(await plainHistory(handle), null, 2));
    expect(await Payout.findByPk(created.id)).toMatchObject({ status: 'paid', reference: row.providerDisbursementId });
    expect((await payoutEvents(ws.accountId)).map((e) => [e.type, e.data.id, e.data.status])).toEqual([
      ['payout.initiated', created.id, 'in_transit'],
      ['payout.paid', created.id, 'paid'],
    ]);
    expect(await available(ws.secretKey)).toBe(60_000);
  });

  it('a disbursement the bank rejects fails the payout with the provider’s code and returns the amount; the module switched off meanwhile changes nothing', async () => {
    const ws = await funded(SANDBOX_TEST_VALUES.accountNumbers.invalidDestination);
    await paymentModule(ws.secretKey, true);
    const created = await createPayout(ws.secretKey);
    await inTransit(created.id);
    await paymentModule(ws.secretKey, false);
    await sandbox.settleDisbursements();
    expect(await ctx.temporal.workflow.getHandle(workflowIds.payout(created.id)).result()).toBe('failed');
    expect(await Payout.findByPk(created.id)).toMatchObject({ status: 'failed', failureReason: 'INVALID_DESTINATION' });
    expect(await available(ws.secretKey)).toBe(100_000);
    expect((await payoutEvents(ws.accountId)).map((e) => e.type)).toEqual(['payout.initiated', 'payout.failed']);
  });

  it('a disbursement the provider refuses at once fails the payout with its error code, only payout.failed, the amount returned', async () => {
    const ws = await funded('1234567890', SANDBOX_TEST_VALUES.bankCodes.unsupported);
    await paymentModule(ws.secretKey, true);
    const created = await createPayout(ws.secretKey);
    expect(await ctx.temporal.workflow.getHandle(workflowIds.payout(created.id)).result()).toBe('failed');
    expect(await Payout.findByPk(created.id)).toMatchObject({ status: 'failed', failureReason: 'BANK_CODE_NOT_SUPPORTED_ERROR', providerDisbursementId: null, reference: null });
    expect(disbursementOf(created.id)).toEqual([]);
    expect(await available(ws.secretKey)).toBe(100_000);
    expect((await payoutEvents(ws.accountId)).map((e) => [e.type, e.data.status])).toEqual([['payout.failed', 'failed']]);
  });

  it('a payout created before the module was switched on finishes on the manual backend, with no provider call and no events', async () => {
    const ws = await funded();
    const created = await createPayout(ws.secretKey);
    await paymentModule(ws.secretKey, true);
    expect((await Payout.findByPk(created.id))!.backend).toBe('manual');
    expect((await http(api.baseUrl, 'POST', `${PAYOUTS}/${created.id}/mark-in-transit`, { key: ws.secretKey, body: { reference: 'TRF-9' } })).status).toBe(200);
    expect((await http(api.baseUrl, 'POST', `${PAYOUTS}/${created.id}/mark-paid`, { key: ws.secretKey, body: {} })).status).toBe(200);
    expect(await ctx.temporal.workflow.getHandle(workflowIds.payout(created.id)).result()).toBe('paid');
    expect(disbursementOf(created.id)).toEqual([]);
    expect(await payoutEvents(ws.accountId)).toEqual([]);
  });

  it('refuses a provider payout to a bank account without a bank code with 400, writing nothing', async () => {
    const ws = await ctx.createWorkspace();
    await fundAvailable(ctx.sequelize, ws, 100_000, 'IDR');
    await http(api.baseUrl, 'PATCH', `${PAYOUTS}/bank-account`, { key: ws.secretKey, body: { bankName: 'Bank', bankAccountNumber: '42', bankAccountHolder: 'Holder' } });
    await paymentModule(ws.secretKey, true);
    expectError(await http(api.baseUrl, 'POST', PAYOUTS, { key: ws.secretKey, body: { amount: 1_000, currency: 'IDR' } }), 400, 'VALIDATION_ERROR');
    expect(await Payout.count({ where: { accountId: ws.accountId } })).toBe(0);
    expect(await available(ws.secretKey)).toBe(100_000);
  });
});
