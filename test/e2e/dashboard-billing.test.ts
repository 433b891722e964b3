import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { Invoice, ManualOrder, Payout, Subscription } from '../../db/models';
import { insertInvoice, line } from '../fixtures/invoices';
import { insertManualOrder, orderLine } from '../fixtures/manual-orders';
import { fundAvailable } from '../fixtures/payouts';
import { insertProduct } from '../fixtures/products';
import { insertBillingCustomer, insertPlan } from '../fixtures/subscriptions';
import { launchChromium, watchedPage } from '../helpers/chromium';
import { http, useTestApi } from '../helpers/context';
import { createDashboardUser } from '../helpers/dashboard';

/**
 * The dashboard's customers, subscriptions, invoices, payouts and manual orders in Debian's Chromium: a merchant
 * opens each page, pauses, resumes and cancels a subscription, downloads an invoice's PDF, sets a bank account and
 * requests a payout (one refused beside its field first), confirms and ships a manual order, all by clicking, with
 * no console error, no CSP violation and nothing wider than the window. Screenshots at 1280 and 390 px go to
 * test-artifacts/dashboard/ (gitignored), `<page>-<width>.png`, beside the other dashboard pages'.
 */
jest.setTimeout(180_000);

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/dashboard');
const WIDTHS = [1280, 390] as const;
const t = useTestApi({ DASHBOARD_SIGNIN_LIMIT_PER_MINUTE: '100000', TEMPORAL_TASK_QUEUE: `dashboard-billing-e2e-${process.pid}` });

let browser: Browser;
let ws: CreatedWorkspace;
let user: { userId: string; email: string; password: string };
let problems: string[] = [];
let customerId: string;
let invoiceId: string;
const subscriptionByWidth = new Map<number, string>();
const orderByWidth = new Map<number, { id: string; orderNumber: string }>();

let keys = 0;
async function subscribe(body: Record<string, unknown>): Promise<string> {
  const res = await http<{ data: { id: string } }>(t.api.baseUrl, 'POST', '/api/v1/payment/subscriptions', { key: ws.secretKey, body, headers: { 'idempotency-key': `dash-billing-e2e-${process.pid}-${++keys}` } });
  if (res.status !== 201) throw new Error(`subscription: ${res.status} ${res.text}`);
  return res.body.data.id;
}

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  browser = await launchChromium("the dashboard's billing browser tests");
  ws = await t.ctx.createWorkspace({ plan: 'pro' });
  user = await createDashboardUser(t.ctx.sequelize, ws.accountId);
  await t.ctx.sequelize.query(`UPDATE accounts SET name = 'Toko Buku Sejahtera Abadi Jayakarta' WHERE id = :id`, { replacements: { id: ws.accountId } });

  const customer = await insertBillingCustomer(ws, { email: 'bartholomew.featherstonehaugh@pelanggan-setia.example.co.id' });
  customerId = customer.id;
  await insertBillingCustomer(ws, { email: 'siti@pelanggan.example' });
  const gold = await insertPlan(ws, { name: 'Langganan Emas Bulanan', amount: 150_000 });
  const yearly = await insertPlan(ws, { name: 'Tahunan', amount: 1_500_000, interval: 'yearly' });
  for (const width of WIDTHS) subscriptionByWidth.set(width, await subscribe({ customerId: customer.id, planId: gold.id, trialDays: 0 }));
  await subscribe({ customerId: customer.id, planId: yearly.id, trialDays: 14 });
  const invoice = await insertInvoice(t.ctx.sequelize, ws, {
    customerId: customer.id,
    lineItems: [line('Desain ulang katalog dan foto produk untuk toko daring', 3, 1_250_000), line('Hosting', 12, 49_000)],
    currency: 'IDR',
  });
  invoiceId = invoice.id;
  await insertInvoice(t.ctx.sequelize, ws, { status: 'paid' });

  await fundAvailable(t.ctx.sequelize, ws, 125_000);
  const productId = await insertProduct(t.ctx.sequelize, ws);
  for (const width of WIDTHS) {
    const order = await insertManualOrder(t.ctx.sequelize, ws, productId, {
      customerName: `Budi Santoso ${width}`,
      customerEmail: `budi.${width}@pelanggan.example.co.id`,
      customerPhone: '+62 812 3456 7890',
      shippingAddress: { name: 'Budi Santoso', line1: 'Jl. Merdeka Barat No. 17, RT 003/RW 005', city: 'Jakarta Pusat', postalCode: '10110', country: 'ID' },
      lines: [orderLine(productId, { productName: 'Field guide to Indonesian birds, second edition', quantity: 2, amount: 5_000 }), orderLine(productId, { lineKey: '2', productName: 'Batik pattern pack' })],
    });
    orderByWidth.set(width, { id: order.id, orderNumber: order.orderNumber });
  }
});

afterAll(async () => {
  await browser?.close();
});

afterEach(() => {
  const seen = problems;
  problems = [];
  expect(seen).toEqual([]);
});

const pageIn = (context: BrowserContext): Promise<Page> => watchedPage(context, (problem) => problems.push(problem));

/** Page-side check (a string: this program is typed without the DOM): neither the document nor a table scrolls sideways. */
const OVERFLOW = `(() => {
  const wide = [document.documentElement, ...document.querySelectorAll('.table-wrap')].filter((e) => e.scrollWidth > e.clientWidth + 1);
  return wide.length ? wide.map((e) => (e.className || e.tagName) + ': ' + e.scrollWidth + 'px in ' + e.clientWidth + 'px').join('; ') : null;
})()`;

async function shot(page: Page, name: string, width: number): Promise<void> {
  expect({ name, width, overflow: await page.evaluate<string | null>(OVERFLOW) }).toEqual({ name, width, overflow: null });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
}

/** A refused form's page answers 4xx, which Chromium reports on the console: the one error expected there. */
const expectRefusal = (status: number) => {
  problems = problems.filter((problem) => !problem.includes(`status of ${status}`));
};

describe.each(WIDTHS)('the billing pages at %i px', (width) => {
  it('shows customers, moves a subscription, downloads an invoice, requests a payout and moves a manual order', async () => {
    const context = await browser.newContext({ viewport: { width, height: 900 }, acceptDownloads: true });
    try {
      const page = await pageIn(context);
      await page.goto(`${t.api.baseUrl}/dashboard/login`);
      await page.getByLabel('E-mail').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${t.api.baseUrl}/dashboard`);

      await page.getByRole('link', { name: 'Customers' }).click();
      await expect(page.getByRole('heading', { name: 'Customers' }).isVisible()).resolves.toBe(true);
      await shot(page, 'customers', width);
      await page.goto(`${t.api.baseUrl}/dashboard/customers/${customerId}`);
      await shot(page, 'customer', width);

      await page.getByRole('link', { name: 'Subscriptions', exact: true }).click();
      await shot(page, 'subscriptions', width);
      const subscriptionId = subscriptionByWidth.get(width)!;
      await page.getByRole('link', { name: subscriptionId }).click();
      await shot(page, 'subscription', width);
      await page.getByRole('button', { name: 'Pause subscription' }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('Subscription paused.');
      await shot(page, 'subscription-paused', width);
      expect((await Subscription.findByPk(subscriptionId))!.status).toBe('paused');
      await page.getByRole('button', { name: 'Resume subscription' }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('Subscription resumed.');
      await page.getByRole('button', { name: 'Cancel at period end' }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('cancels at the end of its current period');
      await shot(page, 'subscription-cancel-scheduled', width);
      expect((await Subscription.findByPk(subscriptionId))!.get()).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });

      await page.getByRole('link', { name: 'Invoices' }).click();
      await shot(page, 'invoices', width);
      const invoice = (await Invoice.findByPk(invoiceId))!;
      await page.getByRole('link', { name: invoice.number }).click();
      await shot(page, 'invoice', width);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download PDF' }).click()]);
      expect(download.suggestedFilename()).toBe(`${invoice.number}.pdf`);
      expect((await readFile((await download.path())!)).subarray(0, 5).toString('latin1')).toBe('%PDF-');

      await page.getByRole('link', { name: 'Payouts' }).click();
      if (width === WIDTHS[0]) {
        await shot(page, 'payouts-no-bank-account', width);
        await page.getByLabel('Bank name').fill('Bank Central Asia');
        await page.getByRole('button', { name: 'Save bank account' }).click();
        await expect(page.locator('#bank-holder-error').innerText()).resolves.toBe('Enter the account holder’s name');
        await shot(page, 'payouts-bank-account-refused', width);
        expectRefusal(400);
        await page.getByLabel('Bank code (optional)').fill('BCA');
        await page.getByLabel('Account holder').fill('PT Toko Buku Sejahtera Abadi Jayakarta');
        await page.getByLabel('Account number').fill('1234567890');
        await page.getByRole('button', { name: 'Save bank account' }).click();
        await expect(page.locator('.notice').innerText()).resolves.toContain('Bank account saved.');
      }
      const before = await Payout.count({ where: { accountId: ws.accountId } });
      await page.getByLabel('Amount').fill('5000');
      await page.getByRole('button', { name: 'Request payout' }).click();
      await expect(page.locator('#payout-amount-error').innerText()).resolves.toMatch(/^More than the \$[\d,]+\.\d{2} available in USD$/);
      await shot(page, 'payouts-refused', width);
      expectRefusal(409);
      await page.getByLabel('Amount').fill('100');
      await page.getByLabel('Note (optional)').fill(`Weekly payout at ${width} px`);
      await page.getByRole('button', { name: 'Request payout' }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('Payout requested.');
      await shot(page, 'payouts', width);
      expect(await Payout.count({ where: { accountId: ws.accountId } })).toBe(before + 1);

      await page.getByRole('link', { name: 'Manual orders' }).click();
      await shot(page, 'manual-orders', width);
      const order = orderByWidth.get(width)!;
      await page.getByRole('link', { name: order.orderNumber }).click();
      await shot(page, 'manual-order', width);
      await page.getByRole('button', { name: 'Confirm payment' }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('Payment confirmed.');
      await page.getByLabel('Status').selectOption('shipped');
      await page.getByLabel('Courier').fill('JNE');
      await page.getByLabel('Tracking number').fill(`JNE-${width}-0001`);
      await page.getByRole('button', { name: 'Save fulfillment' }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('Fulfillment saved.');
      await page.getByLabel('Status').selectOption('preparing');
      await page.getByRole('button', { name: 'Save fulfillment' }).click();
      await expect(page.locator('#fulfillment-status-error').innerText()).resolves.toContain('cannot go back to preparing');
      await shot(page, 'manual-order-refused', width);
      expectRefusal(409);
      expect((await ManualOrder.findByPk(order.id))!.get()).toMatchObject({ paymentStatus: 'payment_confirmed', fulfillmentStatus: 'shipped', trackingNumber: `JNE-${width}-0001` });
    } finally {
      await context.close();
    }
  });
});
