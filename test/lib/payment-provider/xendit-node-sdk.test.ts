import { Xendit, XenditSdkError } from 'xendit-node';
import type { PaymentProvider } from '../../../lib/payment-provider';
import { SANDBOX_TEST_VALUES, sandboxSecretKey, type PaymentSandbox } from '../../../lib/payment-provider/sandbox';
import { createXenditProvider } from '../../../lib/payment-provider/xendit';
import { SANDBOX_LIVE, SANDBOX_TEST, payForm, startCallbackReceiver, startTestSandbox } from '../../helpers/payment-sandbox';
import { waitFor } from '../../helpers/wait';

// Xendit's official Node SDK (xendit-node 7) drives the built-in sandbox over loopback sockets, for every operation
// our adapter makes and the reads and lists around them: what the SDK's models read must be in the sandbox's answers
// (its FromJSON maps over arrays without a check), at the paths and methods the SDK calls.

let sandbox: PaymentSandbox;
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
let xendit: Xendit;
let adapter: PaymentProvider;

/** The SDK's client; its constructor warns on the console about a test key, which is expected here. */
function sdk(secretKey: string): Xendit {
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  try {
    return new Xendit({ secretKey, xenditURL: sandbox.baseUrl });
  } finally {
    warn.mockRestore();
  }
}

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  sandbox = await startTestSandbox({ callbackUrl: receiver.url });
  xendit = sdk(SANDBOX_TEST.secretKey);
  adapter = createXenditProvider({ baseUrl: sandbox.baseUrl, ...SANDBOX_TEST, timeoutMs: 5_000 });
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});

let sequence = 0;
const unique = (prefix: string) => `${prefix}_${Date.now()}_${++sequence}`;

async function sdkError(call: Promise<unknown>): Promise<XenditSdkError> {
  const error = await call.then(
    () => new Error('the call succeeded'),
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(XenditSdkError);
  return error as XenditSdkError;
}

describe('the sandbox keys', () => {
  it('are in the format the SDK checks: xnd_development_ for test, xnd_production_ for live', () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const test = sandboxSecretKey('test');
      const live = sandboxSecretKey('live');
      expect(test).toMatch(/^xnd_development_[A-Za-z0-9_-]{40,}$/);
      expect(live).toMatch(/^xnd_production_[A-Za-z0-9_-]{40,}$/);
      expect(sandboxSecretKey('test')).not.toBe(test);
      new Xendit({ secretKey: test, xenditURL: sandbox.baseUrl });
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('TEST secret key'));
      for (const key of [live, SANDBOX_LIVE.secretKey, SANDBOX_TEST.secretKey]) new Xendit({ secretKey: key, xenditURL: sandbox.baseUrl });
      expect(error).not.toHaveBeenCalled();
      // The sandbox's former keys were refused by that check.
      new Xendit({ secretKey: 'xnd_sandbox_test_0123', xenditURL: sandbox.baseUrl });
      expect(error).toHaveBeenCalledWith(expect.stringContaining('Invalid secret key'));
    } finally {
      error.mockRestore();
      warn.mockRestore();
    }
  });

  it('authenticate: another key is 401 INVALID_API_KEY, as an XenditSdkError', async () => {
    const error = await sdkError(sdk('xnd_development_unknown').Invoice.getInvoices({}));
    expect(error).toMatchObject({ status: 401, errorCode: 'INVALID_API_KEY' });
  });
});

describe('invoices through the SDK', () => {
  it('creates (POST /v2/invoices/), gets, lists and expires an invoice, with the channel arrays the model maps', async () => {
    const externalId = unique('cs_sdk');
    const created = await xendit.Invoice.createInvoice({
      data: {
        externalId,
        amount: 150_000,
        currency: 'IDR',
        description: 'Ebook',
        payerEmail: 'buyer@example.com',
        invoiceDuration: 3_600,
        paymentMethods: ['QRIS', 'BCA', 'BNI', 'OVO', 'CREDIT_CARD'],
        successRedirectUrl: 'https://shop.example.com/thanks',
      },
      forUserId: 'sandbox-sub-account',
    });
    expect(created).toMatchObject({
      externalId,
      status: 'PENDING',
      amount: 150_000,
      currency: 'IDR',
      description: 'Ebook',
      payerEmail: 'buyer@example.com',
      merchantName: 'Sandbox merchant',
      invoiceUrl: `${sandbox.baseUrl}/web/${created.id}`,
      successRedirectUrl: 'https://shop.example.com/thanks',
      availableQrCodes: [{ qrCodeType: 'QRIS' }],
      availableEwallets: [{ ewalletType: 'OVO' }],
      availableRetailOutlets: [],
      availableDirectDebits: [],
      availablePaylaters: [],
      shouldExcludeCreditCard: false,
    });
    expect(created.availableBanks.map((b) => b.bankCode)).toEqual(['BCA', 'BNI']);
    expect(created.availableBanks[0]).toMatchObject({ collectionType: 'POOL', transferAmount: 150_000 });
    expect(Math.abs(created.expiryDate.getTime() - (Date.now() + 3_600_000))).toBeLessThan(5_000);
    expect(created.created).toBeInstanceOf(Date);

    const read = await xendit.Invoice.getInvoiceById({ invoiceId: created.id! });
    expect(read).toEqual(created);
    expect(await xendit.Invoice.getInvoices({ externalId })).toEqual([created]);

    const expired = await xendit.Invoice.expireInvoice({ invoiceId: created.id! });
    expect(expired).toMatchObject({ id: created.id, externalId, status: 'EXPIRED' });
    expect((await xendit.Invoice.getInvoices({ externalId, statuses: ['EXPIRED'] })).map((i) => i.id)).toEqual([created.id]);
    expect(await xendit.Invoice.getInvoices({ externalId, statuses: ['PENDING'] })).toEqual([]);
  });

  it('lists newest first, a page at a time after last_invoice, and by when invoices were paid', async () => {
    const externalId = unique('cs_sdk_page');
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await xendit.Invoice.createInvoice({ data: { externalId, amount: 1_000 + i } }));
    const first = await xendit.Invoice.getInvoices({ externalId, limit: 2 });
    expect(first.map((i) => i.amount)).toEqual([1_002, 1_001]);
    const second = await xendit.Invoice.getInvoices({ externalId, limit: 2, lastInvoice: first[1]!.id });
    expect(second.map((i) => i.amount)).toEqual([1_000]);

    const before = new Date(Date.now() - 1_000);
    await payForm(made[0]!.invoiceUrl, { channel: 'QRIS' });
    const paid = await xendit.Invoice.getInvoices({ externalId, paidAfter: before });
    expect(paid).toEqual([expect.objectContaining({ id: made[0]!.id, status: 'PAID', paymentMethod: 'QR_CODE', currency: 'IDR' })]);
    expect(await xendit.Invoice.getInvoices({ externalId, paidBefore: before })).toEqual([]);
  });

  it('reads an invoice the adapter made, and refuses an unknown one: 404 INVOICE_NOT_FOUND_ERROR', async () => {
    const externalId = unique('cs_adapter');
    const made = await adapter.createInvoice({
      externalId,
      amount: 1050,
      currency: 'USD',
      description: 'Plan',
      payerEmail: null,
      paymentMethods: ['card', 'ewallet'],
      expiresAt: new Date(Date.now() + 60_000),
      successUrl: null,
      failureUrl: null,
    });
    await expect(xendit.Invoice.getInvoiceById({ invoiceId: made.id })).resolves.toMatchObject({
      externalId,
      amount: 10.5,
      currency: 'USD',
      invoiceUrl: made.url,
      availableBanks: [],
      availableQrCodes: [],
      availableEwallets: [{ ewalletType: 'OVO' }, { ewalletType: 'DANA' }, { ewalletType: 'SHOPEEPAY' }, { ewalletType: 'LINKAJA' }],
      shouldExcludeCreditCard: false,
    });
    const error = await sdkError(xendit.Invoice.getInvoiceById({ invoiceId: 'no-such-invoice' }));
    expect(error).toMatchObject({ status: 404, errorCode: 'INVOICE_NOT_FOUND_ERROR' });
  });
});

describe('customers through the SDK', () => {
  it('creates (once per idempotency key), gets, finds by reference and updates a customer', async () => {
    const referenceId = unique('cus_sdk');
    const data = { referenceId, type: 'INDIVIDUAL' as const, individualDetail: { givenNames: 'Ana' }, email: 'ana@example.com', metadata: { tier: 'gold' } };
    const created = await xendit.Customer.createCustomer({ idempotencyKey: referenceId, data });
    expect(created).toMatchObject({ referenceId, type: 'INDIVIDUAL', individualDetail: { givenNames: 'Ana' }, email: 'ana@example.com', metadata: { tier: 'gold' }, addresses: [], identityAccounts: [], kycDocuments: [] });
    expect(created.id).toMatch(/^cust-/);
    expect((await xendit.Customer.createCustomer({ idempotencyKey: referenceId, data })).id).toBe(created.id);

    expect(await xendit.Customer.getCustomer({ id: created.id })).toEqual(created);
    expect(await xendit.Customer.getCustomerByReferenceID({ referenceId })).toEqual({ data: [created], hasMore: false });
    expect(await xendit.Customer.getCustomerByReferenceID({ referenceId: unique('nobody') })).toEqual({ data: [], hasMore: false });

    const updated = await xendit.Customer.updateCustomer({ id: created.id, data: { email: 'ana@new.example.com', mobileNumber: '+628123456789' } });
    expect(updated).toMatchObject({ id: created.id, email: 'ana@new.example.com', mobileNumber: '+628123456789', individualDetail: { givenNames: 'Ana' }, metadata: { tier: 'gold' } });
    expect(updated.updated.getTime()).toBeGreaterThanOrEqual(created.updated.getTime());

    const error = await sdkError(xendit.Customer.getCustomer({ id: 'cust-unknown' }));
    expect(error).toMatchObject({ status: 404, errorCode: 'DATA_NOT_FOUND' });
  });

  it('reads the customers the adapter creates and updates, and keeps each account to its own', async () => {
    const referenceId = unique('cus_adapter');
    const made = await adapter.createCustomer({ referenceId, email: 'ben@example.com', name: 'Ben', metadata: { paymentMethodId: 'pm_1' } });
    await adapter.updateCustomer(made.id, { email: null, name: 'Benjamin', metadata: { paymentMethodId: 'pm_2' } });
    const found = await xendit.Customer.getCustomerByReferenceID({ referenceId });
    expect(found.data).toEqual([expect.objectContaining({ id: made.id, email: 'ben@example.com', individualDetail: { givenNames: 'Benjamin' }, metadata: { paymentMethodId: 'pm_2' } })]);
    const live = sdk(SANDBOX_LIVE.secretKey);
    expect((await live.Customer.getCustomerByReferenceID({ referenceId })).data).toEqual([]);
    expect(await sdkError(live.Customer.getCustomer({ id: made.id }))).toMatchObject({ status: 404 });
  });
});

describe('payment requests through the SDK', () => {
  it('charges a saved payment method (once per idempotency key), gets the charge and lists charges', async () => {
    const customerId = unique('cust-sdk');
    const charge = (paymentMethodId: string, referenceId: string) =>
      xendit.PaymentRequest.createPaymentRequest({ idempotencyKey: referenceId, data: { referenceId, customerId, paymentMethodId, amount: 99_000, currency: 'IDR', description: 'Plan' } });
    const ok = await charge(SANDBOX_TEST_VALUES.paymentMethods.success, unique('inv_ok'));
    expect(ok).toMatchObject({ status: 'SUCCEEDED', amount: 99_000, currency: 'IDR', customerId, description: 'Plan', paymentMethod: { id: SANDBOX_TEST_VALUES.paymentMethods.success, type: 'CARD', reusability: 'MULTIPLE_USE', status: 'ACTIVE' } });
    expect((await charge(SANDBOX_TEST_VALUES.paymentMethods.success, ok.referenceId)).id).toBe(ok.id);
    const declined = await charge(SANDBOX_TEST_VALUES.paymentMethods.declined, unique('inv_declined'));
    expect(declined).toMatchObject({ status: 'FAILED', failureCode: 'CARD_DECLINED' });
    const pending = await charge(SANDBOX_TEST_VALUES.paymentMethods.pending, unique('inv_pending'));
    expect(pending.status).toBe('PENDING');
    sandbox.settlePaymentRequest(pending.id, 'SUCCEEDED');
    await expect(xendit.PaymentRequest.getPaymentRequestByID({ paymentRequestId: pending.id })).resolves.toMatchObject({ id: pending.id, status: 'SUCCEEDED' });

    const all = await xendit.PaymentRequest.getAllPaymentRequests({ customerId: [customerId] });
    expect(all).toEqual({ data: [expect.objectContaining({ id: pending.id }), expect.objectContaining({ id: declined.id }), expect.objectContaining({ id: ok.id })], hasMore: false });
    const page = await xendit.PaymentRequest.getAllPaymentRequests({ customerId: [customerId], limit: 2 });
    expect(page.data.map((r) => r.id)).toEqual([pending.id, declined.id]);
    expect(page.hasMore).toBe(true);
    const next = await xendit.PaymentRequest.getAllPaymentRequests({ customerId: [customerId], limit: 2, afterId: declined.id });
    expect(next).toMatchObject({ data: [expect.objectContaining({ id: ok.id })], hasMore: false });
    const byReference = await xendit.PaymentRequest.getAllPaymentRequests({ referenceId: [ok.referenceId, declined.referenceId] });
    expect(byReference.data.map((r) => r.id)).toEqual([declined.id, ok.id]);

    expect(await sdkError(xendit.PaymentRequest.getPaymentRequestByID({ paymentRequestId: 'pr-unknown' }))).toMatchObject({ status: 404, errorCode: 'DATA_NOT_FOUND' });
  });

  it('reads the charges the adapter makes', async () => {
    const referenceId = unique('inv_adapter');
    const made = await adapter.chargePaymentMethod({ referenceId, customerId: 'cust-x', paymentMethodId: SANDBOX_TEST_VALUES.paymentMethods.insufficientFunds, amount: 50_000, currency: 'IDR', description: 'Renewal' });
    await expect(xendit.PaymentRequest.getPaymentRequestByID({ paymentRequestId: made.id })).resolves.toMatchObject({ referenceId, status: 'FAILED', failureCode: 'INSUFFICIENT_BALANCE', amount: 50_000 });
  });
});

describe('refunds through the SDK', () => {
  it('refunds a paid invoice (once per idempotency key), gets the refund and lists the invoice refunds', async () => {
    const invoice = await xendit.Invoice.createInvoice({ data: { externalId: unique('cs_refund'), amount: 150_000, paymentMethods: ['QRIS'] } });
    await payForm(invoice.invoiceUrl, { channel: 'QRIS' });
    const before = receiver.received.length;
    const referenceId = unique('re_sdk');
    const refund = await xendit.Refund.createRefund({ idempotencyKey: referenceId, data: { invoiceId: invoice.id, referenceId, amount: 50_000, currency: 'IDR', reason: 'REQUESTED_BY_CUSTOMER', metadata: { note: 'damaged' } } });
    expect(refund).toMatchObject({ referenceId, amount: 50_000, currency: 'IDR', channelCode: 'QRIS', country: 'ID', metadata: { note: 'damaged' } });
    expect(refund.id).toMatch(/^rfd-/);
    expect((await xendit.Refund.createRefund({ idempotencyKey: referenceId, data: { invoiceId: invoice.id, referenceId, amount: 50_000 } })).id).toBe(refund.id);

    await expect(xendit.Refund.getRefund({ refundID: refund.id! })).resolves.toMatchObject({ id: refund.id, referenceId, amount: 50_000 });
    const adapterRefund = await adapter.createRefund({ referenceId: unique('re_adapter'), invoiceId: invoice.id!, amount: 100_000, currency: 'IDR', reason: null });
    const listed = await xendit.Refund.getAllRefunds({ invoiceId: invoice.id });
    expect(listed.data.map((r) => r.id)).toEqual([adapterRefund.id, refund.id]);

    const exceeded = await sdkError(xendit.Refund.createRefund({ idempotencyKey: unique('re_more'), data: { invoiceId: invoice.id, referenceId: unique('re_more'), amount: 1 } }));
    expect(exceeded).toMatchObject({ status: 400, errorCode: 'REFUND_AMOUNT_EXCEEDED' });
    expect(await sdkError(xendit.Refund.getRefund({ refundID: 'rfd-unknown' }))).toMatchObject({ status: 404, errorCode: 'DATA_NOT_FOUND' });

    // Its refund.succeeded callback reaches our inbound route's verifier as the adapter's refund event.
    const callback = await waitFor(async () => receiver.received.slice(before).find((c) => c.body.toString().includes(String(refund.id))));
    const header = (name: string) => callback.headers[name] as string | undefined;
    expect(adapter.verifyCallback(callback.body, header)).toMatchObject({ valid: true, event: { kind: 'refund', refundId: refund.id, status: 'succeeded', referenceId } });
  });
});

describe('payouts through the SDK', () => {
  const payout = (referenceId: string, accountNumber: string, channelCode = 'ID_BCA') =>
    xendit.Payout.createPayout({
      idempotencyKey: referenceId,
      data: { referenceId, channelCode, channelProperties: { accountNumber, accountHolderName: 'Ana' }, amount: 500_000, currency: 'IDR', description: 'Weekly' },
    });

  it('creates payouts (once per idempotency key), gets and lists them; they succeed or fail by the test account numbers, each with its callback', async () => {
    const paidReference = unique('pout_sdk');
    const failedReference = unique('pout_sdk');
    const paid = await payout(paidReference, '1234567890');
    expect(paid).toMatchObject({ referenceId: paidReference, channelCode: 'ID_BCA', channelProperties: { accountNumber: '1234567890', accountHolderName: 'Ana' }, amount: 500_000, currency: 'IDR', status: 'ACCEPTED', businessId: 'sandbox-user-1' });
    expect(paid.estimatedArrivalTime).toBeInstanceOf(Date);
    expect((await payout(paidReference, '1234567890')).id).toBe(paid.id);
    const failed = await payout(failedReference, SANDBOX_TEST_VALUES.accountNumbers.rejectedByBank);
    expect(await xendit.Payout.getPayoutById({ id: paid.id })).toEqual(paid);
    expect(await xendit.Payout.getPayouts({ referenceId: paidReference })).toEqual({ data: [paid], hasMore: false });
    // A read under a creating call's idempotency key is a read, not that call's replay.
    const listed = await fetch(`${sandbox.baseUrl}/v2/payouts?reference_id=${paidReference}`, {
      headers: { authorization: `Basic ${Buffer.from(`${SANDBOX_TEST.secretKey}:`).toString('base64')}`, 'idempotency-key': paidReference },
    });
    expect(await listed.json()).toMatchObject({ data: [{ id: paid.id }], has_more: false });

    const before = receiver.received.length;
    await sandbox.settleDisbursements();
    await expect(xendit.Payout.getPayoutById({ id: paid.id })).resolves.toMatchObject({ status: 'SUCCEEDED' });
    await expect(xendit.Payout.getPayoutById({ id: failed.id })).resolves.toMatchObject({ status: 'FAILED', failureCode: 'REJECTED_BY_CHANNEL' });

    const callbacks = await waitFor(async () => {
      const found = receiver.received.slice(before).filter((c) => c.body.toString().includes(paid.id) || c.body.toString().includes(failed.id));
      return found.length === 2 && found;
    });
    const bodies = callbacks.map((c) => JSON.parse(c.body.toString()) as { event: string; data: { id: string; status: string } });
    expect(bodies).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ event: 'payout.succeeded', data: expect.objectContaining({ id: paid.id, status: 'SUCCEEDED' }) }),
        expect.objectContaining({ event: 'payout.failed', data: expect.objectContaining({ id: failed.id, status: 'FAILED', failure_code: 'REJECTED_BY_CHANNEL' }) }),
      ]),
    );
    expect(callbacks.every((c) => c.headers['x-callback-token'] === SANDBOX_TEST.callbackToken)).toBe(true);
    // Our service pays out through disbursements: its inbound route acknowledges a v2 payout's event as unknown.
    const header = (name: string) => callbacks[0]!.headers[name] as string | undefined;
    expect(adapter.verifyCallback(callbacks[0]!.body, header)).toMatchObject({ valid: true, event: { kind: 'unknown' } });
  });

  it('cancels an accepted payout, not a settled one; refuses an unsupported channel', async () => {
    const accepted = await payout(unique('pout_cancel'), '1234567890');
    await expect(xendit.Payout.cancelPayout({ id: accepted.id })).resolves.toMatchObject({ id: accepted.id, status: 'CANCELLED' });
    await sandbox.settleDisbursements();
    await expect(xendit.Payout.getPayoutById({ id: accepted.id })).resolves.toMatchObject({ status: 'CANCELLED' });
    expect(await sdkError(xendit.Payout.cancelPayout({ id: accepted.id }))).toMatchObject({ status: 400, errorCode: 'INVALID_PAYOUT_STATUS' });
    expect(await sdkError(payout(unique('pout_bad'), '1234567890', SANDBOX_TEST_VALUES.bankCodes.unsupported))).toMatchObject({ status: 400, errorCode: 'CHANNEL_CODE_NOT_SUPPORTED' });
    expect(await sdkError(xendit.Payout.getPayoutById({ id: 'disb-unknown' }))).toMatchObject({ status: 404, errorCode: 'DATA_NOT_FOUND' });
  });
});
