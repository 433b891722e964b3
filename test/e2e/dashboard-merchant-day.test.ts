import { mkdtempSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Op } from 'sequelize';
import { ApiKey, CheckoutSession, Delivery, EmailMessage, Product, ProductFile, WebhookDeliveryAttempt } from '../../db/models';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { loadConfig } from '../../lib/config';
import { createMailer } from '../../lib/email';
import { createWebhookAgent } from '../../lib/webhooks/send';
import { workflowIds } from '../../workflows/messages';
import { launchChromium, watchedPage } from '../helpers/chromium';
import { http, useTestApi } from '../helpers/context';
import { createDashboardUser } from '../helpers/dashboard';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtp-server';
import { waitFor } from '../helpers/wait';
import { startTestWorker, type RunningWorker } from '../helpers/worker';

/**
 * A merchant's day in Debian's Chromium, against the API, a real worker on this file's own task queue, a real SMTP
 * server and a real HTTPS webhook receiver on loopback: sign in, set up payment instructions, create a product and
 * upload its file, a buyer buys it through the storefront's buy-now checkout and pays on the hosted page, the
 * merchant confirms it, sees the delivery and resends its e-mail, rotates a key (the old value refused after a short
 * overlap), archives and restores the product, adds a webhook endpoint and sees a test event in its delivery log.
 * Then every page by keyboard alone. Screenshots of the new pages at 1280 and 390 px in test-artifacts/dashboard/.
 */
jest.setTimeout(300_000);

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/dashboard');
const STORAGE = mkdtempSync(path.join(tmpdir(), 'dashboard-day-'));
const TASK_QUEUE = `dashboard-day-${process.pid}`;
/** The rotated key's old value is refused this long after the rotation (24 hours outside tests). */
const OVERLAP_MS = 6_000;
const ENV = {
  DASHBOARD_SIGNIN_LIMIT_PER_MINUTE: '100000',
  PUBLIC_RATE_LIMIT_PER_MINUTE: '100000',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  TEMPORAL_TASK_QUEUE: TASK_QUEUE,
  API_KEY_ROTATION_OVERLAP: `${OVERLAP_MS / 1000}s`,
  FILE_STORAGE_DIR: STORAGE,
};
const t = useTestApi(ENV);

let browser: Browser;
let smtp: TestSmtpServer;
let receiver: HttpsReceiver;
let agent: ReturnType<typeof createWebhookAgent>;
let worker: RunningWorker;
let mailer: ReturnType<typeof createMailer>;
let ws: CreatedWorkspace;
let owner: { userId: string; email: string; password: string };
let problems: string[] = [];
/** Pages of the day, for the keyboard test and the narrow screenshots: [name, path]. */
const visited = new Map<string, string>();

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  browser = await launchChromium("the dashboard's merchant's day");
  smtp = await startTestSmtpServer();
  const certs = await createTestCertificates();
  receiver = await startHttpsReceiver(certs);
  agent = createWebhookAgent({ ca: certs.caCert });
  mailer = createMailer({ SMTP_URL: smtp.url, EMAIL_FROM: t.ctx.config.EMAIL_FROM });
  worker = await startTestWorker(t.ctx.sequelize, TASK_QUEUE, { config: loadConfig({ ...process.env, ...ENV }), mailer, webhookAgent: agent });
  ws = await t.ctx.createWorkspace();
  owner = await createDashboardUser(t.ctx.sequelize, ws.accountId, 'owner');
});

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  mailer?.close();
  await smtp?.close();
  await receiver?.close();
  agent?.destroy();
  await rm(STORAGE, { recursive: true, force: true });
});

afterEach(() => {
  // Leaving a page at once may cut its icon's request short: the browser's doing, not a fault of the page.
  const seen = problems.filter((problem) => !/favicon\.svg net::ERR_ABORTED$/.test(problem));
  problems = [];
  expect(seen).toEqual([]);
});

const pageIn = (context: BrowserContext): Promise<Page> => watchedPage(context, (problem) => problems.push(problem));

/** Page-side check (a string: this program is typed without the DOM): the document no wider than the window. */
const OVERFLOW = `(() => { const r = document.documentElement; return r.scrollWidth > r.clientWidth ? r.scrollWidth + 'px in ' + r.clientWidth + 'px' : null; })()`;

async function shot(page: Page, name: string, width = 1280): Promise<void> {
  expect({ name, width, overflow: await page.evaluate<string | null>(OVERFLOW) }).toEqual({ name, width, overflow: null });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
}

/** Remembers where the page is, under `name`, and photographs it. */
async function seen(page: Page, name: string): Promise<void> {
  visited.set(name, new URL(page.url()).pathname + new URL(page.url()).search);
  await shot(page, name);
}

/** A URL the service wrote with PUBLIC_BASE_URL, on the test API (what a proxy in front of the service does). */
const onTestApi = (url: string) => `${t.api.baseUrl}${new URL(url).pathname}${new URL(url).search}`;

/** A refused form answers 400, which Chromium reports on the console: expected there, and only there. */
const forgiveStatus = (status: number) => {
  problems = problems.filter((problem) => !problem.includes(`status of ${status}`));
};

async function signIn(page: Page): Promise<void> {
  await page.goto(`${t.api.baseUrl}/dashboard/login`);
  await page.getByLabel('E-mail').fill(owner.email);
  await page.getByLabel('Password').fill(owner.password);
  await Promise.all([page.waitForURL(`${t.api.baseUrl}/dashboard`), page.getByRole('button', { name: 'Sign in' }).click()]);
}

describe("a merchant's day in the dashboard", () => {
  it('sells a product with a file, confirms, resends, rotates a key, archives and restores, and sees a test event delivered', async () => {
    const merchant = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const buyer = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await pageIn(merchant);
      await signIn(page);

      // Payment instructions first: the hosted page offers bank transfer only once it has them.
      await page.getByRole('link', { name: 'Storefront' }).click();
      await page.getByLabel('Brand colour (#rrggbb)').fill('teal');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await expect(page.locator('#storefront-brandColor-error').innerText()).resolves.toBe('must be a colour as #rrggbb');
      await shot(page, 'storefront-refused');
      forgiveStatus(400);
      await page.getByLabel('Brand colour (#rrggbb)').fill('#0f766e');
      await page.getByLabel('Bank name').fill('Bank Central');
      await page.getByLabel('Account number').fill('123-456-789');
      await page.getByLabel('Account holder').fill('Toko Buku');
      await page.getByLabel('Bank transfer instructions').fill('Put the reference in the transfer description.');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await expect(page.locator('.notice').innerText()).resolves.toBe('Storefront settings saved.');
      await seen(page, 'storefront');

      // A product, then its file.
      await page.getByRole('link', { name: 'Products', exact: true }).click();
      await page.getByRole('link', { name: 'New product' }).click();
      await seen(page, 'product-new');
      await page.getByLabel('Name').fill('Field guide to Javan birds');
      await page.getByLabel('Price (whole units)').fill('twenty');
      await page.getByRole('button', { name: 'Create product' }).click();
      await expect(page.locator('#product-price-error').innerText()).resolves.toContain('Type a whole number');
      await shot(page, 'product-new-refused');
      forgiveStatus(400);
      await page.getByLabel('Price (whole units)').fill('25');
      await page.getByLabel('Description (optional)').fill('Every bird of Java, with calls.');
      await page.getByLabel('Publish now (buyers can see and buy it)').check();
      await page.getByRole('button', { name: 'Create product' }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('Product created.');
      const productId = /\/dashboard\/products\/(prod_\w+)/.exec(page.url())![1]!;
      await page.getByLabel('Upload a file').setInputFiles({ name: 'javan-birds.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.7 birds\n'.repeat(2000)) });
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('File uploaded.');
      await expect(page.locator('.file-list').innerText()).resolves.toContain('javan-birds.pdf');
      expect((await ProductFile.findAll({ where: { productId } })).map((f) => [f.fileName, Number(f.fileSize)])).toEqual([['javan-birds.pdf', 30_000]]);
      await seen(page, 'product-edit');

      // The buyer: the storefront's buy button posts to the buy-now checkout the page shows (test mode: with the
      // workspace's publishable test key), then the buyer opens its hostedUrl and pays.
      const buyNow = (await page.locator('dd', { hasText: '/checkout' }).innerText()).replace(/^POST /, '');
      const created = await http<{ data: { checkoutSessionId: string; hostedUrl: string } }>(t.api.baseUrl, 'POST', new URL(buyNow).pathname, {
        key: ws.publishableKey,
        body: { email: 'ana@buyer.example', name: 'Ana' },
      });
      expect({ status: created.status, text: created.status === 201 ? '' : created.text }).toEqual({ status: 201, text: '' });
      const sessionId = created.body.data.checkoutSessionId;
      const buyerPage = await pageIn(buyer);
      await buyerPage.goto(onTestApi(created.body.data.hostedUrl));
      // The one method with instructions, the bank transfer the storefront settings gave.
      await expect(buyerPage.locator('.method-single').innerText()).resolves.toContain('Bank transfer');
      await Promise.all([buyerPage.waitForURL(onTestApi(created.body.data.hostedUrl)), buyerPage.getByRole('button', { name: 'Pay $25.00' }).click()]);
      await expect(buyerPage.locator('main').innerText()).resolves.toContain('Awaiting confirmation');
      expect((await CheckoutSession.findByPk(sessionId))!.status).toBe('pending_review');

      // The merchant confirms; the worker fulfils the session and its receipt goes to the buyer.
      await page.getByRole('link', { name: 'Checkouts', exact: true }).click();
      await page.getByRole('link', { name: sessionId }).click();
      await page.getByRole('button', { name: 'Confirm payment' }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('Payment confirmed.');
      await seen(page, 'checkout-sold');
      await expect(t.ctx.temporal.workflow.getHandle(workflowIds.checkoutSession(sessionId)).result()).resolves.toBe('fulfilled');
      // The session workflow sent the receipt itself before it ended.
      expect((await EmailMessage.findOne({ where: { businessKey: `checkout_receipt:${sessionId}` } }))!.status).toBe('sent');
      const toBuyer = () => smtp.received.filter((m) => m.envelope.to.includes('ana@buyer.example') && m.parsed.text?.includes('javan-birds.pdf'));
      await waitFor(async () => toBuyer().length === 1, { timeoutMs: 30_000 });

      // The delivery, and its e-mail resent: a second message at the SMTP server.
      const [delivery] = await Delivery.findAll({ where: { checkoutSessionId: sessionId } });
      await page.getByRole('link', { name: 'Deliveries' }).click();
      await expect(page.getByText(delivery!.id).count()).resolves.toBe(1);
      await page.getByRole('button', { name: `Resend the e-mail of ${delivery!.id}` }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('on its way to the buyer again');
      await waitFor(async () => toBuyer().length === 2, { timeoutMs: 30_000 });
      expect(new Set(toBuyer().map((m) => m.parsed.messageId)).size).toBe(2);

      // A key rotated: the old value works until the overlap ends, then is refused; the owner is e-mailed.
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByLabel('Name').fill('Warehouse sync');
      await page.getByRole('button', { name: 'Create key' }).click();
      const oldValue = await page.locator('#new-key-value').innerText();
      await page.getByRole('button', { name: /^Rotate Warehouse sync / }).click();
      const newValue = await page.locator('#new-key-value').innerText();
      expect(newValue).not.toBe(oldValue);
      const keyStatus = async (value: string) => (await http(t.api.baseUrl, 'GET', '/api/v1/account/api-keys', { key: value })).status;
      expect([await keyStatus(oldValue), await keyStatus(newValue)]).toEqual([200, 200]);
      const notice = await waitFor(async () => smtp.received.find((m) => m.parsed.subject?.includes('Warehouse sync')), { timeoutMs: 30_000 });
      expect(notice.envelope.to).toEqual([owner.email]);
      const oldKey = (await ApiKey.findOne({ where: { accountId: ws.accountId, name: 'Warehouse sync', replacedByKeyId: { [Op.ne]: null } } }))!;
      expect(oldKey.expiresAt!.getTime() - oldKey.createdAt.getTime()).toBeLessThan(OVERLAP_MS + 60_000);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, oldKey.expiresAt!.getTime() - Date.now() + 50)));
      expect([await keyStatus(oldValue), await keyStatus(newValue)]).toEqual([401, 200]);

      // Archive and restore the product.
      await page.getByRole('link', { name: 'Products', exact: true }).click();
      await page.getByRole('button', { name: 'Archive Field guide to Javan birds' }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('Product archived.');
      await page.getByRole('link', { name: 'Archived' }).click();
      await page.getByRole('button', { name: 'Restore Field guide to Javan birds' }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('Product restored.');
      expect((await Product.findByPk(productId))!.get()).toMatchObject({ archived: false, published: false });
      await seen(page, 'products-with-new');

      // A webhook endpoint, its secret once, a test event in its delivery log.
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('link', { name: 'Add an endpoint' }).click();
      await seen(page, 'webhook-new');
      await page.getByLabel('URL').fill('http://plain.example/hooks');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await expect(page.locator('#webhook-url-error').innerText()).resolves.toContain('https://');
      await shot(page, 'webhook-new-refused');
      forgiveStatus(400);
      await page.getByLabel('URL').fill(receiver.url('/shop-hooks'));
      await page.getByLabel('Description (optional)').fill('Shop sync');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await expect(page.locator('#new-webhook-secret').innerText()).resolves.toMatch(/^whsec_/);
      await shot(page, 'webhook-created');
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await expect(page.locator('.notice').innerText()).resolves.toContain('Test event sent.');
      await page.getByRole('link', { name: receiver.url('/shop-hooks') }).click();
      const endpointId = /\/developers\/webhooks\/(whe_\w+)/.exec(page.url())![1]!;
      await waitFor(async () => (await WebhookDeliveryAttempt.count({ where: { endpointId, status: 'succeeded' } })) === 1, { timeoutMs: 30_000 });
      await page.reload();
      await expect(page.locator('tbody tr').first().innerText()).resolves.toMatch(/evt_test_\w+[^]*delivered/);
      expect(receiver.received.filter((r) => r.path === '/shop-hooks')).toHaveLength(1);
      await seen(page, 'webhook-endpoint');

      await page.getByRole('link', { name: 'Modules' }).click();
      await page.getByRole('button', { name: 'Switch Fulfillment on' }).click();
      await expect(page.locator('.notice').innerText()).resolves.toBe('Module switched on.');
      await seen(page, 'modules');
    } finally {
      await merchant.close();
      await buyer.close();
    }
  });

  it('shows the new pages at 390 px with nothing wider than the window', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await pageIn(context);
      await signIn(page);
      for (const [name, where] of visited) {
        await page.goto(`${t.api.baseUrl}${where.replace(/\?.*$/, '')}`);
        await shot(page, name, 390);
      }
      // The refusals and the one-time secret, as the narrow screen shows them.
      await page.goto(`${t.api.baseUrl}/dashboard/products/new`);
      await page.getByLabel('Price (whole units)').fill('twenty');
      await page.getByRole('button', { name: 'Create product' }).click();
      await shot(page, 'product-new-refused', 390);
      await page.goto(`${t.api.baseUrl}/dashboard/settings/storefront`);
      await page.getByLabel('Brand colour (#rrggbb)').fill('teal');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await shot(page, 'storefront-refused', 390);
      await page.goto(`${t.api.baseUrl}/dashboard/developers/webhooks/new`);
      await page.getByLabel('URL').fill('http://plain.example/hooks');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await shot(page, 'webhook-new-refused', 390);
      forgiveStatus(400);
      await page.getByLabel('URL').fill(receiver.url('/narrow-hooks'));
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await expect(page.locator('#new-webhook-secret').innerText()).resolves.toMatch(/^whsec_/);
      await shot(page, 'webhook-created', 390);
    } finally {
      await context.close();
    }
  });

  it('is usable by keyboard: every control of every page reached by Tab with a visible focus, every field labelled, the sign-in and product forms sent by keys alone', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await pageIn(context);
      // Sign in by keys alone: Tab to the e-mail field, type, Tab, type, Enter.
      await page.goto(`${t.api.baseUrl}/dashboard/login`);
      await tabTo(page, 'email');
      await page.keyboard.type(owner.email);
      await page.keyboard.press('Tab');
      await page.keyboard.type(owner.password);
      await Promise.all([page.waitForURL(`${t.api.baseUrl}/dashboard`), page.keyboard.press('Enter')]);

      // A product created by keys alone.
      await page.goto(`${t.api.baseUrl}/dashboard/products/new`);
      await tabTo(page, 'product-name');
      await page.keyboard.type('Keyboard-made guide');
      await page.keyboard.press('Tab'); // type: digital, as it is
      await page.keyboard.press('Tab');
      await page.keyboard.type('9');
      await page.keyboard.press('Tab'); // currency: USD, as it is
      await page.keyboard.press('Tab'); // weight: none
      await page.keyboard.press('Tab');
      await page.keyboard.type('Made without a mouse.');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Space');
      await page.keyboard.press('Tab');
      await Promise.all([page.waitForURL(/\/dashboard\/products\/prod_\w+\?notice=product-created$/), page.keyboard.press('Enter')]);
      const made = (await Product.findOne({ where: { accountId: ws.accountId, name: 'Keyboard-made guide' } }))!;
      expect(made.get()).toMatchObject({ price: 9, currency: 'USD', type: 'digital', published: true, description: 'Made without a mouse.' });

      const pages = ['/dashboard', '/dashboard/checkouts', '/dashboard/products', '/dashboard/products?archived=1', '/dashboard/deliveries', '/dashboard/developers/api-keys', '/dashboard/developers/webhooks', '/dashboard/account', ...visited.values()];
      for (const where of new Set(pages)) {
        await page.goto(`${t.api.baseUrl}${where}`);
        const unlabelled = await page.evaluate<string[]>(UNLABELLED);
        expect({ where, unlabelled }).toEqual({ where, unlabelled: [] });
        const controls = await page.evaluate<number>(MARK_CONTROLS);
        const reached = new Set<string>();
        const unstyled: string[] = [];
        // Every control once, then back to the start of the page: one round of Tab presses.
        for (let press = 0; press <= controls + 1; press += 1) {
          await page.keyboard.press('Tab');
          const focused = await page.evaluate<{ id: string | null; outline: string; label: string }>(FOCUSED);
          if (focused.id === null) continue;
          reached.add(focused.id);
          if (!/^(solid|auto|dotted|dashed|double) /.test(focused.outline) || / 0px$/.test(focused.outline)) unstyled.push(`${focused.label}: ${focused.outline}`);
        }
        expect({ where, controls, reached: reached.size, unstyled }).toEqual({ where, controls, reached: controls, unstyled: [] });
      }
    } finally {
      await context.close();
    }
  });
});

/** Presses Tab from the page's start until the element of `id` has the focus (at most 40 presses). */
async function tabTo(page: Page, id: string): Promise<void> {
  for (let press = 0; press < 40; press += 1) {
    await page.keyboard.press('Tab');
    if ((await page.evaluate<string>('document.activeElement ? document.activeElement.id : ""')) === id) return;
  }
  throw new Error(`Tab never reached #${id}`);
}

// Page-side code as strings: this program is typed without the DOM's globals.
/** Every visible control gets a `data-control` number; answers how many there are. */
const MARK_CONTROLS = `(() => {
  const all = [...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary')]
    .filter((el) => !el.disabled && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden');
  all.forEach((el, i) => el.setAttribute('data-control', String(i)));
  return all.length;
})()`;

/** The focused control's number, its outline as drawn (style, then width) and a name to report it by. */
const FOCUSED = `(() => {
  const el = document.activeElement;
  if (!el || !el.hasAttribute('data-control')) return { id: null, outline: '', label: '' };
  const style = getComputedStyle(el);
  return { id: el.getAttribute('data-control'), outline: style.outlineStyle + ' ' + style.outlineWidth, label: el.tagName + ' ' + (el.id || el.textContent.trim().slice(0, 40)) };
})()`;

/** Fields without a label (a <label for>, a wrapping label or an aria-label), by their name. */
const UNLABELLED = `[...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
  .filter((el) => el.labels.length === 0 && !el.getAttribute('aria-label'))
  .map((el) => el.name || el.id || el.outerHTML.slice(0, 80))`;

