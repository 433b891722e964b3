import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Product } from '../../db/models';
import { insertCheckoutSessionRow, lineOf } from '../fixtures/checkout';
import { insertDelivery } from '../fixtures/deliveries';
import { insertProduct } from '../fixtures/products';
import { insertWebhookEndpoint } from '../fixtures/webhooks';
import { launchChromium, watchedPage } from '../helpers/chromium';
import { useTestApi } from '../helpers/context';
import { createDashboardUser } from '../helpers/dashboard';

/**
 * The dashboard in Debian's Chromium: a merchant signs in through the form, opens every page, archives a product and
 * restores it, all by clicking, with no console error, no CSP violation and nothing wider than the window. Every page
 * is photographed at 1280 and 390 px into test-artifacts/dashboard/ (gitignored), `<page>-<width>.png`.
 */
jest.setTimeout(180_000);

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/dashboard');
const WIDTHS = [1280, 390] as const;
// The e2e's own queue: the confirmed sessions' and rotation e-mails' workflows are left to no worker.
const t = useTestApi({ DASHBOARD_SIGNIN_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', TEMPORAL_TASK_QUEUE: `dashboard-e2e-${process.pid}` });

let browser: Browser;
let user: { userId: string; email: string; password: string };
let problems: string[] = [];
const pendingByWidth = new Map<number, string>();
let completedId: string;

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  browser = await launchChromium("the dashboard's browser tests");
  const ws = await t.ctx.createWorkspace();
  const second = await t.ctx.createWorkspace();
  user = await createDashboardUser(t.ctx.sequelize, ws.accountId);
  // A member of a second workspace too: the header has the workspace switcher.
  await t.ctx.sequelize.query('INSERT INTO memberships (user_id, account_id, role) VALUES (:userId, :accountId, :role)', {
    replacements: { userId: user.userId, accountId: second.accountId, role: 'member' },
  });
  await t.ctx.sequelize.query(`UPDATE accounts SET name = 'Toko Buku Sejahtera Abadi Jayakarta' WHERE id = :id`, { replacements: { id: ws.accountId } });
  const names = ['Field guide to Indonesian birds, second edition', 'Route Planner Pro', 'Batik pattern pack'];
  for (const [index, name] of names.entries()) {
    const id = await insertProduct(t.ctx.sequelize, ws);
    await Product.update({ name, published: index !== 2 }, { where: { id } });
    if (index === 0) {
      const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'completed', lineItems: [lineOf(id, 125_000)], customerEmail: 'bartholomew.featherstonehaugh@pelanggan-setia.example.co.id' });
      completedId = session.id;
      await insertDelivery(t.ctx.sequelize, ws, id, { session, kind: 'license' });
    }
  }
  // One pending transfer per width, each confirmed by its run.
  for (const width of WIDTHS) {
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, { status: 'pending_review', description: `Transfer ${width}`, customerEmail: `transfer.${width}@pelanggan.example.co.id` });
    pendingByWidth.set(width, session.id);
  }
  await insertWebhookEndpoint(ws, { url: 'https://hooks.toko-buku.example.co.id/commerce/webhooks/receive' });
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

/** Page-side check (as a string: this program is typed without the DOM): the document no wider than the window. */
const OVERFLOW = `(() => { const r = document.documentElement; return r.scrollWidth > r.clientWidth ? r.scrollWidth + 'px in ' + r.clientWidth + 'px' : null; })()`;

async function shot(page: Page, name: string, width: number): Promise<void> {
  expect({ name, width, overflow: await page.evaluate<string | null>(OVERFLOW) }).toEqual({ name, width, overflow: null });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
}

describe.each(WIDTHS)('the dashboard at %i px', (width) => {
  it('signs in, shows every page with its workspace and mode, archives and restores a product', async () => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    try {
      const page = await pageIn(context);
      await page.goto(`${t.api.baseUrl}/dashboard/products`);
      expect(new URL(page.url()).pathname).toBe('/dashboard/login');
      await shot(page, 'login', width);

      await page.getByLabel('E-mail').fill(user.email);
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.locator('#signin-error').innerText()).resolves.toBe('The e-mail or the password is not right.');
      await shot(page, 'login-refused', width);
      // The refused sign-in's page is a 401, which Chromium reports on the console: the one error expected here.
      problems = problems.filter((problem) => !problem.includes('status of 401'));
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${t.api.baseUrl}/dashboard`);
      await expect(page.locator('.mode').innerText()).resolves.toBe('Test mode: you are viewing test data.');
      await expect(page.getByRole('heading', { name: 'Overview' }).isVisible()).resolves.toBe(true);
      await expect(page.getByLabel('Workspace').isVisible()).resolves.toBe(true);
      await shot(page, 'overview', width);

      await expect(page.locator('svg.chart').count()).resolves.toBe(1);

      await page.getByRole('link', { name: 'Checkouts', exact: true }).click();
      await shot(page, 'checkouts', width);
      await page.getByLabel('Status').selectOption('pending_review');
      await page.getByRole('button', { name: 'Filter' }).click();
      await expect(page.getByText(completedId).count()).resolves.toBe(0);
      await shot(page, 'checkouts-pending', width);
      await page.getByRole('link', { name: pendingByWidth.get(width)! }).click();
      await shot(page, 'checkout-pending', width);
      await page.getByRole('button', { name: 'Confirm payment' }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('Payment confirmed.');
      await page.goto(`${t.api.baseUrl}/dashboard/checkouts/${completedId}`);
      await shot(page, 'checkout-completed', width);
      await page.getByLabel('Amount (USD)').fill('12.345');
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      await expect(page.locator('#refund-amount-error').isVisible()).resolves.toBe(true);
      await shot(page, 'checkout-refund-refused', width);
      // The refused form's page is a 400, which Chromium reports on the console: the one error expected here.
      problems = problems.filter((problem) => !problem.includes('status of 400'));
      await page.getByLabel('Amount (USD)').fill('10');
      await page.getByLabel('Reason (optional)').fill(`Partial refund at ${width} px`);
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('Refund recorded.');
      await shot(page, 'checkout-refunded', width);

      await page.getByRole('link', { name: 'Products' }).click();
      await shot(page, 'products', width);
      await page.getByRole('button', { name: 'Archive Route Planner Pro' }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('Product archived.');
      await expect(page.getByText('Route Planner Pro').count()).resolves.toBe(0);
      await page.getByRole('link', { name: 'Archived' }).click();
      await shot(page, 'products-archived', width);
      await page.getByRole('button', { name: 'Restore Route Planner Pro' }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('Product restored.');
      await expect(page.getByRole('button', { name: 'Archive Route Planner Pro' }).isVisible()).resolves.toBe(true);

      await page.getByRole('link', { name: 'Deliveries' }).click();
      await shot(page, 'deliveries', width);
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByLabel('Name').fill(`Browser key ${width}`);
      await page.getByRole('button', { name: 'Create key' }).click();
      await expect(page.locator('#new-key-value').innerText()).resolves.toMatch(/^sk_test_\w{40}$/);
      await shot(page, 'api-keys-created', width);
      await page.getByRole('button', { name: new RegExp(`^Rotate Browser key ${width} `) }).click();
      await expect(page.locator('#new-key-value').innerText()).resolves.toMatch(/^sk_test_\w{40}$/);
      await expect(page.getByRole('heading', { name: `Key “Browser key ${width}” rotated` }).isVisible()).resolves.toBe(true);
      await shot(page, 'api-keys-rotated', width);
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await shot(page, 'webhooks', width);
      await page.getByRole('link', { name: 'Sessions' }).click();
      await shot(page, 'sessions', width);

      await page.getByRole('button', { name: 'View live data' }).click();
      await expect(page.locator('.mode').innerText()).resolves.toBe('Live mode: real customers and money.');
      await shot(page, 'overview-live', width);
      await page.getByRole('button', { name: 'View test data' }).click();

      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.waitForURL(`${t.api.baseUrl}/dashboard/login?notice=signed-out`);
    } finally {
      await context.close();
    }
  });
});
