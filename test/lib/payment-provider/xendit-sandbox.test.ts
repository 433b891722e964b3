import { ProviderError, type PaymentProvider } from '../../../lib/payment-provider';
import { SANDBOX_TEST_VALUES, type PaymentSandbox } from '../../../lib/payment-provider/sandbox';
import { CALLBACK_MAX_AGE_MS, createXenditProvider } from '../../../lib/payment-provider/xendit';
import { SANDBOX_LIVE, SANDBOX_TEST, startCallbackReceiver, startTestSandbox } from '../../helpers/payment-sandbox';
import { waitFor } from '../../helpers/wait';

// The Xendit adapter against the built-in sandbox over loopback sockets: every call the adapter makes, the hosted
// page's outcomes, the callbacks (token, webhook-id, body) and their verification.

let sandbox: PaymentSandbox;
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
let provider: PaymentProvider;

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  sandbox = await startTestSandbox({ callbackUrl: receiver.url });
  provider = createXenditProvider({ baseUrl: sandbox.baseUrl, ...SANDBOX_TEST, timeoutMs: 5_000 });
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});

const header = (headers: Record<string, unknown>) => (name: string) => {
  const value = headers[name.toLowerCase()];
  return typeof value === 'string' ? value : undefined;
};

async function newInvoice(overrides: Partial<Parameters<PaymentProvider['createInvoice']>[0]> = {}) {
  return provider.createInvoice({
    externalId: 'cs_01JTESTSESSION0000000000000',
    amount: 150_000,
    currency: 'IDR',
    description: 'Ebook <b>bold</b> & "quoted"',
    payerEmail: 'buyer@example.com',
    paymentMethods: ['qris', 'card'],
    expiresAt: new Date(Date.now() + 3_600_000),
    successUrl: null,
    failureUrl: null,
    ...overrides,
  });
}

async function submit(url: string, form: Record<string, string>) {
  return fetch(url, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' });
}

describe('the Xendit adapter against the sandbox provider', () => {
  it('creates a customer with our id as reference, once per idempotency key', async () => {
    const first = await provider.createCustomer({ referenceId: 'cus_01JTESTCUSTOMER000000000000', email: null, name: 'Ana', metadata: {} });
    const again = await provider.createCustomer({ referenceId: 'cus_01JTESTCUSTOMER000000000000', email: null, name: 'Ana', metadata: {} });
    expect(first.id).toMatch(/^cust-/);
    expect(first.referenceId).toBe('cus_01JTESTCUSTOMER000000000000');
    expect(again.id).toBe(first.id);
  });

  it('creates a hosted invoice for the methods asked, in the provider major unit, expiring with the session', async () => {
    const invoice = await newInvoice({ amount: 1050, currency: 'USD' });
    expect(invoice).toMatchObject({ externalId: 'cs_01JTESTSESSION0000000000000', status: 'pending' });
    expect(invoice.url).toBe(`${sandbox.baseUrl}/web/${invoice.id}`);
    const stored = sandbox.invoices.get(invoice.id)!;
    expect(stored.amount).toBe(10.5);
    expect(stored.payment_methods).toEqual(['QRIS', 'CREDIT_CARD']);
    expect(Math.abs(Date.parse(stored.expiry_date) - (Date.now() + 3_600_000))).toBeLessThan(5_000);
  });

  it('refuses a bad key as unavailable (fix the key, then retry) and a bad request as refused', async () => {
    const wrongKey = createXenditProvider({ baseUrl: sandbox.baseUrl, secretKey: 'nope', callbackToken: SANDBOX_TEST.callbackToken, timeoutMs: 5_000 });
    await expect(newInvoiceWith(wrongKey)).rejects.toMatchObject({ kind: 'unavailable', status: 401, code: 'INVALID_API_KEY' });
    await expect(newInvoice({ currency: 'EUR' })).rejects.toMatchObject({ kind: 'refused', status: 400, code: 'UNSUPPORTED_CURRENCY' });
    const down = createXenditProvider({ baseUrl: 'http://127.0.0.1:1', ...SANDBOX_TEST, timeoutMs: 1_000 });
    await expect(newInvoiceWith(down)).rejects.toBeInstanceOf(ProviderError);
  });

  it('serves a hosted page with the values escaped, and pays it with the success card: one PAID callback with the token', async () => {
    const invoice = await newInvoice();
    const page = await fetch(invoice.url);
    const html = await page.text();
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(html).toContain('Ebook &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;');
    expect(html).not.toContain('<b>bold</b>');

    const before = receiver.received.length;
    const declined = await submit(`${invoice.url}/pay`, { channel: 'CREDIT_CARD', card_number: SANDBOX_TEST_VALUES.cards.declined });
    expect(declined.status).toBe(303);
    expect(await (await fetch(invoice.url)).text()).toContain('Payment failed: CARD_DECLINED');
    await submit(`${invoice.url}/pay`, { channel: 'CREDIT_CARD', card_number: SANDBOX_TEST_VALUES.cards.insufficientFunds });
    expect(sandbox.invoices.get(invoice.id)!.last_failure).toBe('INSUFFICIENT_BALANCE');
    expect(sandbox.invoices.get(invoice.id)!.status).toBe('PENDING');

    await submit(`${invoice.url}/pay`, { channel: 'CREDIT_CARD', card_number: SANDBOX_TEST_VALUES.cards.success });
    const callback = await waitFor(async () => receiver.received.length > before && receiver.received[before]);
    expect(receiver.received).toHaveLength(before + 1);
    expect(callback.headers['x-callback-token']).toBe(SANDBOX_TEST.callbackToken);
    expect(callback.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);

    const verdict = provider.verifyCallback(callback.body, header(callback.headers));
    expect(verdict).toEqual({
      valid: true,
      event: expect.objectContaining({ kind: 'invoice', invoiceId: invoice.id, externalId: 'cs_01JTESTSESSION0000000000000', status: 'paid', paymentMethod: 'card', paidAmount: 150_000, currency: 'IDR' }),
    });
  });

  it('refuses a callback with a missing or wrong token, a stale or future timestamp, or a body that is not JSON', async () => {
    const invoice = await newInvoice();
    const before = receiver.received.length;
    await submit(`${invoice.url}/expire`, {});
    const callback = await waitFor(async () => receiver.received[before]);
    const headers = header(callback.headers);
    expect(provider.verifyCallback(callback.body, headers)).toMatchObject({ valid: true, event: { kind: 'invoice', status: 'expired' } });

    expect(provider.verifyCallback(callback.body, () => undefined)).toEqual({ valid: false, reason: 'missing_token' });
    expect(provider.verifyCallback(callback.body, (n) => (n === 'x-callback-token' ? SANDBOX_LIVE.callbackToken : headers(n)))).toEqual({ valid: false, reason: 'token_mismatch' });
    expect(provider.verifyCallback(Buffer.from('not json'), headers)).toEqual({ valid: false, reason: 'malformed_body' });
    const later = new Date(Date.now() + CALLBACK_MAX_AGE_MS + 60_000);
    expect(provider.verifyCallback(callback.body, headers, later)).toEqual({ valid: false, reason: 'timestamp_outside_tolerance' });
    const earlier = new Date(Date.now() - 10 * 60_000);
    expect(provider.verifyCallback(callback.body, headers, earlier)).toEqual({ valid: false, reason: 'timestamp_outside_tolerance' });
  });

  it('expires a pending invoice (idempotent; a paid one stays paid)', async () => {
    const invoice = await newInvoice();
    await provider.expireInvoice(invoice.id);
    await provider.expireInvoice(invoice.id);
    expect(sandbox.invoices.get(invoice.id)!.status).toBe('EXPIRED');
    const paid = await newInvoice();
    await submit(`${paid.url}/pay`, { channel: 'QRIS' });
    await provider.expireInvoice(paid.id);
    expect(sandbox.invoices.get(paid.id)!.status).toBe('PAID');
  });

  it('charges saved payment methods: success, decline, insufficient funds', async () => {
    const charge = (paymentMethodId: string, referenceId: string) =>
      provider.chargePaymentMethod({ referenceId, customerId: 'cust-x', paymentMethodId, amount: 99_000, currency: 'IDR', description: 'Plan' });
    await expect(charge(SANDBOX_TEST_VALUES.paymentMethods.success, 'ch_1')).resolves.toMatchObject({ status: 'succeeded', failureCode: null });
    await expect(charge(SANDBOX_TEST_VALUES.paymentMethods.declined, 'ch_2')).resolves.toMatchObject({ status: 'failed', failureCode: 'CARD_DECLINED' });
    await expect(charge(SANDBOX_TEST_VALUES.paymentMethods.insufficientFunds, 'ch_3')).resolves.toMatchObject({ status: 'failed', failureCode: 'INSUFFICIENT_BALANCE' });
  });

  it('follows a charge that confirms later: pending, then what the provider settled it to', async () => {
    const charge = (referenceId: string) =>
      provider.chargePaymentMethod({ referenceId, customerId: 'cust-x', paymentMethodId: SANDBOX_TEST_VALUES.paymentMethods.pending, amount: 99_000, currency: 'IDR', description: 'Plan' });
    const confirmed = await charge('ch_pending_1');
    const declined = await charge('ch_pending_2');
    expect(confirmed).toMatchObject({ status: 'pending', failureCode: null });
    await expect(provider.getCharge(confirmed.id)).resolves.toEqual({ id: confirmed.id, status: 'pending', failureCode: null });
    sandbox.settlePaymentRequest(confirmed.id, 'SUCCEEDED');
    sandbox.settlePaymentRequest(declined.id, 'FAILED');
    await expect(provider.getCharge(confirmed.id)).resolves.toEqual({ id: confirmed.id, status: 'succeeded', failureCode: null });
    await expect(provider.getCharge(declined.id)).resolves.toEqual({ id: declined.id, status: 'failed', failureCode: 'CARD_DECLINED' });
    await expect(provider.getCharge('pr-unknown')).rejects.toMatchObject({ kind: 'refused', status: 404 });
  });

  it('refunds a paid invoice in part, then the rest; more is refused; a refund.succeeded callback follows', async () => {
    const invoice = await newInvoice();
    await submit(`${invoice.url}/pay`, { channel: 'QRIS' });
    const before = receiver.received.length;
    const first = await provider.createRefund({ referenceId: 're_1', invoiceId: invoice.id, amount: 50_000, currency: 'IDR', reason: 'damaged' });
    expect(first.status).toBe('pending');
    await provider.createRefund({ referenceId: 're_2', invoiceId: invoice.id, amount: 100_000, currency: 'IDR', reason: null });
    await expect(provider.createRefund({ referenceId: 're_3', invoiceId: invoice.id, amount: 1, currency: 'IDR', reason: null })).rejects.toMatchObject({ kind: 'refused', code: 'REFUND_AMOUNT_EXCEEDED' });
    const callback = await waitFor(async () => receiver.received.slice(before).find((c) => c.body.toString().includes(first.id)));
    expect(provider.verifyCallback(callback.body, header(callback.headers))).toMatchObject({ valid: true, event: { kind: 'refund', refundId: first.id, status: 'succeeded' } });
  });

  it('disburses: PENDING, then COMPLETED or FAILED by the test account numbers, each by callback', async () => {
    const disburse = (externalId: string, accountNumber: string) =>
      provider.createDisbursement({ externalId, amount: 500_000, currency: 'IDR', bankCode: 'BCA', accountHolderName: 'Ana', accountNumber, description: 'Payout' });
    const paid = await disburse('pout_1', '1234567890');
    const failed = await disburse('pout_2', SANDBOX_TEST_VALUES.accountNumbers.invalidDestination);
    expect(paid.status).toBe('pending');
    expect(await disburse('pout_1', '1234567890')).toEqual(paid);
    const before = receiver.received.length;
    await sandbox.settleDisbursements();
    await waitFor(async () => receiver.received.length >= before + 2);
    const events = receiver.received.slice(before).map((c) => provider.verifyCallback(c.body, header(c.headers)));
    expect(events).toEqual(
      expect.arrayContaining([
        { valid: true, event: expect.objectContaining({ kind: 'disbursement', disbursementId: paid.id, externalId: 'pout_1', status: 'completed', failureCode: null }) },
        { valid: true, event: expect.objectContaining({ kind: 'disbursement', disbursementId: failed.id, externalId: 'pout_2', status: 'failed', failureCode: 'INVALID_DESTINATION' }) },
      ]),
    );
  });

  it('re-sends a recorded callback with the same webhook-id (a duplicate), and holds callbacks when told (a late one)', async () => {
    sandbox.holdCallbacks = true;
    const invoice = await newInvoice();
    const before = receiver.received.length;
    await submit(`${invoice.url}/pay`, { channel: 'QRIS' });
    const held = sandbox.callbacks.at(-1)!;
    expect(held.attempts).toEqual([]);
    sandbox.holdCallbacks = false;
    expect(await sandbox.deliver(held.webhookId)).toBe(200);
    expect(await sandbox.deliver(held.webhookId)).toBe(200);
    const sent = receiver.received.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.headers['webhook-id']).toBe(sent[1]!.headers['webhook-id']);
  });
});

function newInvoiceWith(p: PaymentProvider) {
  return p.createInvoice({
    externalId: 'cs_x',
    amount: 1000,
    currency: 'IDR',
    description: 'x',
    payerEmail: null,
    paymentMethods: ['qris'],
    expiresAt: new Date(Date.now() + 60_000),
    successUrl: null,
    failureUrl: null,
  });
}
