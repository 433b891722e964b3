import express from 'express';
import { QueryTypes } from 'sequelize';
import { Invoice, ManualOrder, Payout, PayoutBankAccount, Subscription } from '../../db/models';
import type { Services } from '../../domain/services';
import { mountMoneyPages } from '../../api/dashboard/pages';
import { requireEncryptionKey } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import { insertInvoice, line } from '../fixtures/invoices';
import { insertManualOrder } from '../fixtures/manual-orders';
import { fundAvailable, insertPayoutRow } from '../fixtures/payouts';
import { insertProduct } from '../fixtures/products';
import { insertBillingCustomer, insertPlan, subscriptionEvents } from '../fixtures/subscriptions';
import { http, useTestApi } from '../helpers/context';
import { createDashboardUser, csrfOf, DashboardClient } from '../helpers/dashboard';
import { pdfText } from '../helpers/pdf';

jest.setTimeout(120_000);

// Workflows these pages start (subscription signals, payouts, confirmed orders) go to a queue no worker polls:
// this file tests what the pages write and which service calls they make, as the API tests of those routes do.
const t = useTestApi({ DASHBOARD_SIGNIN_LIMIT_PER_MINUTE: '100000', TEMPORAL_TASK_QUEUE: `dashboard-billing-${process.pid}` });
const box = () => createCryptoBox(requireEncryptionKey(t.ctx.config));

async function signedIn() {
  const ws = await t.ctx.createWorkspace({ plan: 'pro' });
  const user = await createDashboardUser(t.ctx.sequelize, ws.accountId);
  const client = new DashboardClient(t.api.baseUrl);
  expect((await client.signIn(user.email, user.password)).status).toBe(303);
  return { ws, user, client };
}

let keys = 0;
async function subscribe(ws: { secretKey: string }, body: Record<string, unknown>): Promise<string> {
  const res = await http<{ data: { id: string } }>(t.api.baseUrl, 'POST', '/api/v1/payment/subscriptions', { key: ws.secretKey, body, headers: { 'idempotency-key': `dash-billing-${process.pid}-${++keys}` } });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

const signals = async (subscriptionId: string) =>
  (
    await t.ctx.sequelize.query(`SELECT 1 FROM workflow_starts WHERE workflow_type = 'subscriptionChanged' AND workflow_id = :id`, {
      type: QueryTypes.SELECT,
      replacements: { id: `subscription:${subscriptionId}` },
    })
  ).length;

/** A page's rows as they stand, to show a refused form changed nothing. */
const rowOf = async (model: { findByPk(id: string): Promise<{ get(): object } | null> }, id: string) => (await model.findByPk(id))!.get();

describe('dashboard customers', () => {
  it('lists the workspace’s customers only, finds one by e-mail, and shows one with its subscriptions and invoices', async () => {
    const { ws, client } = await signedIn();
    const other = await t.ctx.createWorkspace();
    const ana = await insertBillingCustomer(ws, { email: 'ana@pelanggan.example' });
    await insertBillingCustomer(ws, { email: 'bo@pelanggan.example' });
    const theirs = await insertBillingCustomer(other, { email: 'theirs@pelanggan.example' });
    const plan = await insertPlan(ws, { name: 'Gold', amount: 100_000 });
    const subscriptionId = await subscribe(ws, { customerId: ana.id, planId: plan.id, trialDays: 0 });
    const invoice = (await Invoice.findOne({ where: { subscriptionId } }))!;

    const list = await client.get('/dashboard/customers');
    expect(list.status).toBe(200);
    expect(list.text).toContain('ana@pelanggan.example');
    expect(list.text).toContain('bo@pelanggan.example');
    expect(list.text).not.toContain('theirs@pelanggan.example');
    expect(list.text).toMatch(/<label for="customer-email">E-mail \(exact\)<\/label>/);
    const found = await client.get('/dashboard/customers?email=ana%40pelanggan.example');
    expect(found.text).toContain(`/dashboard/customers/${ana.id}`);
    expect(found.text).not.toContain('bo@pelanggan.example');

    const detail = await client.get(`/dashboard/customers/${ana.id}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain(`/dashboard/subscriptions/${subscriptionId}`);
    expect(detail.text).toContain('Gold · IDR');
    expect(detail.text).toContain(`/dashboard/invoices/${invoice.id}`);
    expect(detail.text).toMatch(/<td class="num">IDR(&nbsp;|\s| )100,000<\/td>/);

    const refused = await client.get(`/dashboard/customers/${theirs.id}`);
    expect(refused.status).toBe(404);
    expect(refused.text).not.toContain('theirs@pelanggan.example');
  });
});

describe('dashboard subscriptions', () => {
  it('pauses, resumes and cancels through the subscriptions service: the row changes and its workflow is signalled, as PATCH and DELETE do', async () => {
    const { ws, user, client } = await signedIn();
    const customer = await insertBillingCustomer(ws, { email: 'sub@pelanggan.example' });
    const plan = await insertPlan(ws, { name: 'Basic', amount: 100_000 });
    const id = await subscribe(ws, { customerId: customer.id, planId: plan.id, trialDays: 0 });
    const trialing = await subscribe(ws, { customerId: customer.id, planId: plan.id, trialDays: 7 });
    const page = `/dashboard/subscriptions/${id}`;

    const list = await client.get('/dashboard/subscriptions');
    expect(list.text).toContain(id);
    expect(list.text).toContain('sub@pelanggan.example');
    expect(list.text).toContain('Basic · IDR');
    const filtered = await client.get('/dashboard/subscriptions?status=trialing');
    expect(filtered.text).toContain(trialing);
    expect(filtered.text).not.toContain(`/dashboard/subscriptions/${id}"`);

    const shown = await client.get(page);
    expect(shown.text).toContain('Pause subscription');
    expect(shown.text).not.toContain('Resume subscription');
    expect((await client.get(`/dashboard/subscriptions/${trialing}`)).text).not.toContain('Pause subscription');

    // Without the session's token: refused, nothing changed, nothing signalled.
    const before = await rowOf(Subscription, id);
    expect((await client.request('POST', `${page}/pause`, {})).status).toBe(403);
    expect((await client.request('POST', `${page}/cancel`, { when: 'now' })).status).toBe(403);
    expect(await rowOf(Subscription, id)).toEqual(before);
    expect(await signals(id)).toBe(0);

    const paused = await client.post(`${page}/pause`, {}, page);
    expect(paused).toMatchObject({ status: 303, location: `${page}?notice=paused` });
    expect((await Subscription.findByPk(id))!.get()).toMatchObject({ status: 'paused', pausedAt: expect.any(Date) });
    expect(await signals(id)).toBe(1);
    const pausedPage = await client.get(paused.location!);
    expect(pausedPage.text).toContain('Subscription paused.');
    expect(pausedPage.text).toContain('Resume subscription');
    // Pausing again is no move (as PATCH answers it): nothing signalled. Pausing a trial is the service's refusal, shown as a page.
    expect((await client.post(`${page}/pause`, {}, page)).status).toBe(303);
    expect(await signals(id)).toBe(1);
    const refused = await client.post(`/dashboard/subscriptions/${trialing}/pause`, {}, page);
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('Only an active subscription can be paused; this one is trialing');
    expect((await Subscription.findByPk(trialing))!.status).toBe('trialing');

    expect(await client.post(`${page}/resume`, {}, page)).toMatchObject({ status: 303, location: `${page}?notice=resumed` });
    expect((await Subscription.findByPk(id))!.get()).toMatchObject({ status: 'active', pausedAt: null });
    expect(await signals(id)).toBe(2);

    expect(await client.post(`${page}/cancel`, { when: 'period_end' }, page)).toMatchObject({ status: 303, location: `${page}?notice=cancel-scheduled` });
    expect((await Subscription.findByPk(id))!.get()).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    expect(await signals(id)).toBe(3);
    const scheduled = await client.get(page);
    expect(scheduled.text).toContain('It already cancels at the end of this period.');
    expect(scheduled.text).not.toContain('Cancel at period end');

    expect(await client.post(`${page}/cancel`, { when: 'now' }, page)).toMatchObject({ status: 303, location: `${page}?notice=canceled` });
    const canceled = (await Subscription.findByPk(id))!;
    expect(canceled.get()).toMatchObject({ status: 'canceled', canceledAt: expect.any(Date) });
    expect(await signals(id)).toBe(4);
    expect((await Invoice.findByPk(canceled.latestInvoiceId!))!.status).toBe('void');
    expect(await subscriptionEvents(t.ctx.sequelize, id)).toEqual([
      { type: 'subscription.created', status: 'active' },
      { type: 'subscription.canceled', status: 'canceled' },
    ]);
    const after = await client.get(page);
    expect(after.text).not.toMatch(/Pause subscription|Resume subscription|Cancel now/);
    expect((await client.post(`${page}/cancel`, { when: 'now' }, page)).status).toBe(409);
    expect(user.userId).toMatch(/^usr_/);
  });
});

describe('dashboard invoices', () => {
  it('lists the workspace’s invoices as money, shows one with its lines, and downloads its PDF from the invoices service', async () => {
    const { ws, client } = await signedIn();
    const other = await t.ctx.createWorkspace();
    const customer = await insertBillingCustomer(ws, { email: 'inv@pelanggan.example' });
    const invoice = await insertInvoice(t.ctx.sequelize, ws, { customerId: customer.id, lineItems: [line('Design retainer', 2, 12_550), line('Hosting', 1, 4_900)] });
    const paid = await insertInvoice(t.ctx.sequelize, ws, { status: 'paid' });
    const theirs = await insertInvoice(t.ctx.sequelize, other);

    const list = await client.get('/dashboard/invoices');
    expect(list.text).toContain(invoice.number);
    expect(list.text).toContain(paid.number);
    expect(list.text).not.toContain(`/dashboard/invoices/${theirs.id}`);
    expect(list.text).toContain('inv@pelanggan.example');
    expect(list.text).toContain(`<td class="num">$${(invoice.amount / 100).toFixed(2)}</td>`);
    const onlyPaid = await client.get('/dashboard/invoices?status=paid');
    expect(onlyPaid.text).toContain(paid.number);
    expect(onlyPaid.text).not.toContain(`/dashboard/invoices/${invoice.id}"`);

    const detail = await client.get(`/dashboard/invoices/${invoice.id}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toMatch(/Design retainer<\/td><td class="num">2<\/td><td class="num hide-narrow">\$125\.50<\/td><td class="num">\$251\.00<\/td>/);
    expect(detail.text).toContain(`href="/dashboard/invoices/${invoice.id}/pdf" download`);

    // The PDF, fetched as the browser's download link does: a real document of this invoice, saved under its number.
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const pdf = await fetch(`${t.api.baseUrl}/dashboard/invoices/${invoice.id}/pdf`, { headers: { cookie } });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe(`attachment; filename=${invoice.number}.pdf`);
    expect(pdf.headers.get('cache-control')).toBe('no-store');
    const body = Buffer.from(await pdf.arrayBuffer());
    expect(body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = await pdfText(body);
    expect(text).toContain(invoice.number);
    expect(text).toContain('Design retainer');
    // The API's PDF of the same invoice is the same document.
    const api = await fetch(`${t.api.baseUrl}/api/v1/payment/invoices/${invoice.id}/pdf`, { headers: { authorization: `Bearer ${ws.secretKey}` } });
    expect(api.headers.get('content-disposition')).toBe(pdf.headers.get('content-disposition'));
    expect(await pdfText(Buffer.from(await api.arrayBuffer()))).toBe(text);

    const refused = await fetch(`${t.api.baseUrl}/dashboard/invoices/${theirs.id}/pdf`, { headers: { cookie } });
    expect(refused.status).toBe(404);
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
    // Signed out, the download is the sign-in page, never the document.
    const anonymous = await fetch(`${t.api.baseUrl}/dashboard/invoices/${invoice.id}/pdf`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
  });
});

describe('dashboard payouts', () => {
  it('sets the bank account and requests a payout through the payouts service: one payout, never more than is available, errors beside their fields', async () => {
    const { ws, client } = await signedIn();
    const other = await t.ctx.createWorkspace();
    await fundAvailable(t.ctx.sequelize, ws, 5_000);
    const theirPayout = await insertPayoutRow(box(), other, { amount: 777 });

    const first = await client.get('/dashboard/payouts');
    expect(first.status).toBe(200);
    expect(first.text).toContain('<dt>Available (USD)</dt><dd>$50.00</dd>');
    expect(first.text).toContain('Set a bank account below before requesting a payout.');
    expect(first.text).not.toContain('id="payout-amount"');
    expect(first.text).not.toContain(theirPayout.id);

    // The bank account: every field labelled, a missing one named beside it, nothing saved.
    for (const [id, label] of [
      ['bank-name', 'Bank name'],
      ['bank-code', 'Bank code (optional)'],
      ['bank-holder', 'Account holder'],
      ['bank-number', 'Account number'],
    ]) {
      expect(first.text).toContain(`<label for="${id}">${label}</label>`);
    }
    const missing = await client.post('/dashboard/payouts/bank-account', { bankName: 'Bank Central Asia', bankCode: '', bankAccountHolder: '', bankAccountNumber: '' }, '/dashboard/payouts');
    expect(missing.status).toBe(400);
    expect(missing.text).toMatch(/id="bank-holder-error">Enter the account holder’s name</);
    expect(missing.text).toMatch(/id="bank-number-error">Enter the account number</);
    expect(missing.text).toContain('value="Bank Central Asia"');
    expect(await PayoutBankAccount.count({ where: { accountId: ws.accountId } })).toBe(0);
    const saved = await client.post('/dashboard/payouts/bank-account', { bankName: 'Bank Central Asia', bankCode: 'BCA', bankAccountHolder: 'PT Toko <Buku>', bankAccountNumber: '1234-5678-90' }, '/dashboard/payouts');
    expect(saved).toMatchObject({ status: 303, location: '/dashboard/payouts?notice=bank-account-saved' });
    const account = await http<{ data: { bankName: string; bankAccountNumber: string; bankAccountHolder: string; bankCode: string } }>(t.api.baseUrl, 'GET', '/api/v1/payouts/bank-account', { key: ws.secretKey });
    expect(account.body.data).toMatchObject({ bankName: 'Bank Central Asia', bankCode: 'BCA', bankAccountHolder: 'PT Toko <Buku>', bankAccountNumber: '1234-5678-90' });

    const ready = await client.get(saved.location!);
    expect(ready.text).toContain('Bank account saved.');
    expect(ready.text).toContain('PT Toko &lt;Buku&gt;');
    expect(ready.text).toContain('<label for="payout-amount">Amount</label>');

    // More than available: refused beside the amount, in money; a malformed amount too; nothing requested.
    const tooMuch = await client.post('/dashboard/payouts', { currency: 'USD', amount: '50.01', note: '' }, '/dashboard/payouts');
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.text).toMatch(/<input id="payout-amount"[^>]*aria-invalid="true" aria-describedby="payout-amount-error">/);
    expect(tooMuch.text).toMatch(/id="payout-amount-error">More than the \$50\.00 available in USD</);
    expect(tooMuch.text).toContain('value="50.01"');
    const malformed = await client.post('/dashboard/payouts', { currency: 'USD', amount: '12.345', note: '' }, '/dashboard/payouts');
    expect(malformed.status).toBe(400);
    expect(malformed.text).toMatch(/id="payout-amount-error">Type an amount in USD, like 125\.00</);
    const noBalance = await client.post('/dashboard/payouts', { currency: 'IDR', amount: '1000', note: '' }, '/dashboard/payouts');
    expect(noBalance.status).toBe(400);
    expect(noBalance.text).toMatch(/id="payout-currency-error">no balance in IDR; the workspace has a balance only in USD</);
    // Without the session's token: refused.
    expect((await client.request('POST', '/dashboard/payouts', { currency: 'USD', amount: '10', note: '' })).status).toBe(403);
    expect(await Payout.count({ where: { accountId: ws.accountId } })).toBe(0);

    // The form as the page holds it: its token and the newest payout it showed (none yet).
    const formOnPage = async () => {
      const html = (await client.get('/dashboard/payouts')).text;
      return { _csrf: csrfOf(html), latestPayoutId: /name="latestPayoutId" value="([^"]*)"/.exec(html)![1]! };
    };
    const opened = await formOnPage();
    expect(opened.latestPayoutId).toBe('');
    const requested = await client.request('POST', '/dashboard/payouts', { ...opened, currency: 'USD', amount: '20.00', note: 'Weekly' });
    expect(requested).toMatchObject({ status: 303, location: '/dashboard/payouts?notice=payout-requested' });
    // The same form sent again (a double click, a resubmitted page) requests nothing more, and says so beside the amount.
    const resent = await client.request('POST', '/dashboard/payouts', { ...opened, currency: 'USD', amount: '20.00', note: 'Weekly' });
    expect(resent.status).toBe(409);
    expect(resent.text).toMatch(/id="payout-amount-error">A payout was requested since this form was opened; nothing was requested now/);
    const payouts = await Payout.findAll({ where: { accountId: ws.accountId } });
    expect(payouts.map((p) => p.get())).toEqual([expect.objectContaining({ amount: 2_000, currency: 'USD', status: 'pending', backend: 'manual', bankName: 'Bank Central Asia', note: 'Weekly' })]);
    const balance = await http<{ data: { available: number }[] }>(t.api.baseUrl, 'GET', '/api/v1/payouts/balance', { key: ws.secretKey });
    expect(balance.body.data[0]!.available).toBe(3_000);
    const history = await client.get(requested.location!);
    expect(history.text).toContain('Payout requested.');
    expect(history.text).toContain(payouts[0]!.id);
    expect(history.text).toContain('<dt>Available (USD)</dt><dd>$30.00</dd>');
    expect(history.text).toContain('Bank Central Asia · …7890');
    expect(history.text).not.toContain(theirPayout.id);
    // One cent more than what is left: refused beside the field, in money.
    const reopened = await formOnPage();
    expect(reopened.latestPayoutId).toBe(payouts[0]!.id);
    const over = await client.request('POST', '/dashboard/payouts', { ...reopened, currency: 'USD', amount: '30.01', note: '' });
    expect(over.status).toBe(409);
    expect(over.text).toMatch(/id="payout-amount-error">More than the \$30\.00 available in USD</);
    expect(await Payout.count({ where: { accountId: ws.accountId } })).toBe(1);
    // Two sends of one form at once (each could be covered by the balance): exactly one payout.
    const raced = await Promise.all([1, 2].map(() => client.request('POST', '/dashboard/payouts', { ...reopened, currency: 'USD', amount: '5', note: '' })));
    expect(raced.map((r) => r.status).sort()).toEqual([303, 409]);
    expect(await Payout.count({ where: { accountId: ws.accountId } })).toBe(2);
    expect((await http<{ data: { available: number }[] }>(t.api.baseUrl, 'GET', '/api/v1/payouts/balance', { key: ws.secretKey })).body.data[0]!.available).toBe(2_500);
  });
});

describe('dashboard manual orders', () => {
  it('lists orders, shows one with its moves, and moves it through the manual-orders service; a refused move is shown beside its field', async () => {
    const { ws, user, client } = await signedIn();
    const productId = await insertProduct(t.ctx.sequelize, ws);
    const order = await insertManualOrder(t.ctx.sequelize, ws, productId, { customerName: 'Budi <Santoso>', customerEmail: 'budi@pelanggan.example' });
    const shippedOne = await insertManualOrder(t.ctx.sequelize, ws, productId, { fulfillmentStatus: 'shipped', shippedAt: new Date(), paymentStatus: 'payment_confirmed', paymentConfirmedAt: new Date() });
    const page = `/dashboard/manual-orders/${order.id}`;

    const list = await client.get('/dashboard/manual-orders');
    expect(list.text).toContain(order.orderNumber);
    expect(list.text).toContain(shippedOne.orderNumber);
    expect(list.text).toContain('Budi &lt;Santoso&gt;');
    expect(list.text).toContain('<td class="num hide-narrow">$25.00</td>');
    const filtered = await client.get('/dashboard/manual-orders?fulfillmentStatus=shipped');
    expect(filtered.text).toContain(shippedOne.orderNumber);
    expect(filtered.text).not.toContain(`>${order.orderNumber}<`);

    const shown = await client.get(page);
    expect(shown.text).toContain('Confirm payment');
    expect(shown.text).toMatch(/<span class="timeline-what">Placed<\/span>/);
    for (const label of ['Status', 'Courier', 'Tracking number', 'Payment note', 'Shipping note']) expect(shown.text).toMatch(new RegExp(`<label for="[\\w-]+">${label}</label>`));

    const before = await rowOf(ManualOrder, order.id);
    expect((await client.request('POST', `${page}/payment`, { paymentStatus: 'payment_confirmed' })).status).toBe(403);
    expect(await rowOf(ManualOrder, order.id)).toEqual(before);

    const confirmed = await client.post(`${page}/payment`, { paymentStatus: 'payment_confirmed' }, page);
    expect(confirmed).toMatchObject({ status: 303, location: `${page}?notice=order-confirmed` });
    expect((await ManualOrder.findByPk(order.id))!.get()).toMatchObject({ paymentStatus: 'payment_confirmed', paymentConfirmedAt: expect.any(Date) });
    const afterConfirm = await client.get(confirmed.location!);
    expect(afterConfirm.text).toMatch(/<span class="timeline-what">Payment confirmed<\/span>/);
    expect(afterConfirm.text).not.toContain('Cancel order');
    const audit = await t.ctx.sequelize.query<{ actor_user_id: string }>(`SELECT actor_user_id FROM audit_logs WHERE target_id = :id AND action = 'manual_order.updated'`, {
      type: QueryTypes.SELECT,
      replacements: { id: order.id },
    });
    expect(audit).toEqual([{ actor_user_id: user.userId }]);

    // Confirming twice is the service's refusal, beside the payment buttons' place.
    const twice = await client.post(`${page}/payment`, { paymentStatus: 'payment_confirmed' }, page);
    expect(twice.status).toBe(409);
    expect(twice.text).toMatch(/id="payment-error">Order [\w-]+ is already payment_confirmed</);

    const shipped = await client.post(`${page}/fulfillment`, { fulfillmentStatus: 'shipped', trackingCourier: 'JNE', trackingNumber: 'JNE123' }, page);
    expect(shipped).toMatchObject({ status: 303, location: `${page}?notice=fulfillment-saved` });
    expect((await ManualOrder.findByPk(order.id))!.get()).toMatchObject({ fulfillmentStatus: 'shipped', trackingCourier: 'JNE', trackingNumber: 'JNE123', shippedAt: expect.any(Date) });
    const back = await client.post(`${page}/fulfillment`, { fulfillmentStatus: 'preparing', trackingCourier: 'JNE', trackingNumber: 'JNE123' }, page);
    expect(back.status).toBe(409);
    expect(back.text).toMatch(/<select id="fulfillment-status" name="fulfillmentStatus" aria-invalid="true" aria-describedby="fulfillment-status-error">/);
    expect(back.text).toMatch(/id="fulfillment-status-error">Order [\w-]+ is shipped: it cannot go back to preparing/);
    expect((await ManualOrder.findByPk(order.id))!.fulfillmentStatus).toBe('shipped');

    const tooLong = await client.post(`${page}/fulfillment`, { fulfillmentStatus: 'shipped', trackingCourier: 'x'.repeat(81), trackingNumber: '' }, page);
    expect(tooLong.status).toBe(400);
    expect(tooLong.text).toContain('id="tracking-courier-error"');

    expect(await client.post(`${page}/notes`, { merchantPaymentNote: 'Paid by BCA transfer', merchantShippingNote: '' }, page)).toMatchObject({ status: 303 });
    expect((await ManualOrder.findByPk(order.id))!.get()).toMatchObject({ merchantPaymentNote: 'Paid by BCA transfer', merchantShippingNote: null });

    // Canceling an order awaiting payment: canceled, and its fulfillment form is gone.
    const third = await insertManualOrder(t.ctx.sequelize, ws, productId);
    const thirdPage = `/dashboard/manual-orders/${third.id}`;
    expect(await client.post(`${thirdPage}/payment`, { paymentStatus: 'canceled' }, thirdPage)).toMatchObject({ status: 303, location: `${thirdPage}?notice=order-canceled` });
    expect((await ManualOrder.findByPk(third.id))!.paymentStatus).toBe('canceled');
    expect((await client.get(thirdPage)).text).not.toContain('id="fulfillment-status"');
  });
});

/** Every route of these pages, read from the pages' own mounting: each is tested below. */
function pageRoutes(): string[] {
  const router = express.Router();
  const posts: string[] = [];
  mountMoneyPages({ router, services: {} as Services, page: () => undefined, post: (path) => posts.push(`POST ${path}`) });
  const gets = (router.stack as { route?: { path: string } }[]).flatMap((layer) => (layer.route ? [`GET ${layer.route.path}`] : []));
  return [...gets, ...posts].sort();
}
const idRoutes = () => pageRoutes().filter((route) => route.includes(':id'));

describe('dashboard billing CSRF', () => {
  it('refuses every form of these pages without the session’s token, and changes nothing', async () => {
    const { ws, client } = await signedIn();
    const customer = await insertBillingCustomer(ws);
    const subscriptionId = await subscribe(ws, { customerId: customer.id, planId: (await insertPlan(ws)).id, trialDays: 0 });
    const order = await insertManualOrder(t.ctx.sequelize, ws, await insertProduct(t.ctx.sequelize, ws));
    await fundAvailable(t.ctx.sequelize, ws, 5_000);
    const ids: Record<string, string> = { subscriptions: subscriptionId, 'manual-orders': order.id };
    const before = { subscription: await rowOf(Subscription, subscriptionId), order: await rowOf(ManualOrder, order.id) };
    const posts = pageRoutes().filter((route) => route.startsWith('POST '));
    expect(posts).toHaveLength(8);
    for (const route of posts) {
      const template = route.slice('POST '.length);
      const path = `/dashboard${template.replace(':id', ids[template.split('/')[1]!] ?? '')}`;
      const form = { when: 'now', paymentStatus: 'canceled', fulfillmentStatus: 'shipped', merchantPaymentNote: 'x', currency: 'USD', amount: '10', bankName: 'B', bankAccountHolder: 'H', bankAccountNumber: '1' };
      const refused = await client.request('POST', path, form);
      expect({ route, status: refused.status }).toEqual({ route, status: 403 });
      expect(refused.text).toContain('Form refused');
    }
    expect({ subscription: await rowOf(Subscription, subscriptionId), order: await rowOf(ManualOrder, order.id) }).toEqual(before);
    expect(await signals(subscriptionId)).toBe(0);
    expect(await Payout.count({ where: { accountId: ws.accountId } })).toBe(0);
    expect(await PayoutBankAccount.count({ where: { accountId: ws.accountId } })).toBe(0);
  });
});

describe('dashboard billing across workspaces', () => {
  it('answers another workspace’s id on every route of these pages with the 404 page, and changes nothing', async () => {
    const { client } = await signedIn();
    const other = await t.ctx.createWorkspace({ plan: 'pro' });
    const customer = await insertBillingCustomer(other, { email: 'other-tenant@pelanggan.example' });
    const plan = await insertPlan(other);
    const subscriptionId = await subscribe(other, { customerId: customer.id, planId: plan.id, trialDays: 0 });
    const invoice = (await Invoice.findOne({ where: { subscriptionId } }))!;
    const order = await insertManualOrder(t.ctx.sequelize, other, await insertProduct(t.ctx.sequelize, other));
    const ids: Record<string, string> = { customers: customer.id, subscriptions: subscriptionId, invoices: invoice.id, 'manual-orders': order.id };
    const forms: Record<string, Record<string, string>> = {
      cancel: { when: 'now' },
      payment: { paymentStatus: 'payment_confirmed' },
      fulfillment: { fulfillmentStatus: 'shipped', trackingCourier: 'JNE', trackingNumber: '1' },
      notes: { merchantPaymentNote: 'x', merchantShippingNote: '' },
    };
    const before = { subscription: await rowOf(Subscription, subscriptionId), invoice: await rowOf(Invoice, invoice.id), order: await rowOf(ManualOrder, order.id) };

    const routes = idRoutes();
    expect(routes).toEqual([
      'GET /customers/:id',
      'GET /invoices/:id',
      'GET /invoices/:id/pdf',
      'GET /manual-orders/:id',
      'GET /subscriptions/:id',
      'POST /manual-orders/:id/fulfillment',
      'POST /manual-orders/:id/notes',
      'POST /manual-orders/:id/payment',
      'POST /subscriptions/:id/cancel',
      'POST /subscriptions/:id/pause',
      'POST /subscriptions/:id/resume',
    ]);
    const token = csrfOf((await client.get('/dashboard')).text);
    for (const route of routes) {
      const [method, template] = route.split(' ') as [string, string];
      const resource = template.split('/')[1]!;
      const path = `/dashboard${template.replace(':id', ids[resource]!)}`;
      const action = template.split('/')[3];
      const res = method === 'GET' ? await client.get(path) : await client.request('POST', path, { _csrf: token, ...(action ? forms[action] : {}) });
      expect({ route, status: res.status }).toEqual({ route, status: 404 });
      expect(res.text).toContain('belongs to another workspace');
      expect(res.text).not.toContain('other-tenant@pelanggan.example');
    }
    expect({ subscription: await rowOf(Subscription, subscriptionId), invoice: await rowOf(Invoice, invoice.id), order: await rowOf(ManualOrder, order.id) }).toEqual(before);
    expect(await signals(subscriptionId)).toBe(0);
  });
});
