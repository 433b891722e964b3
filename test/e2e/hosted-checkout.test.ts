import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { QueryTypes } from 'sequelize';
import { Account, Delivery, EmailMessage, License, Product, type CheckoutSession } from '../../db/models';
import { createDownloadLinks } from '../../domain/deliveries/links';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { requireEncryptionKey } from '../../lib/config';
import { createMailer } from '../../lib/email';
import { workflowIds } from '../../workflows/messages';
import { insertCoupon } from '../fixtures/cart';
import { insertCheckoutSessionRow, lineOf, type CheckoutOverrides } from '../fixtures/checkout';
import { insertProductFile, insertProducts } from '../fixtures/products';
import { http, useTestApi } from '../helpers/context';
import { startTestSmtpServer, type TestSmtpServer } from '../helpers/smtp-server';
import { waitFor } from '../helpers/wait';
import { startTestWorker } from '../helpers/worker';
import { launchChromium, watchedPage } from '../helpers/chromium';

/**
 * The hosted checkout page in a real browser: Debian's Chromium driven by playwright-core, against the API on an
 * ephemeral loopback port, the merchant confirming through the API and a real worker fulfilling the session and
 * sending the receipt to a real SMTP server on loopback. Screenshots of each state land in
 * test-artifacts/hosted-checkout/ (gitignored).
 */
jest.setTimeout(120_000);

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/hosted-checkout');
/** The merchant logo's host: never reached, the browser's requests to it are answered by the test (page.route). */
const LOGO_URL = 'https://cdn.acme.test/logo.svg';
/** The merchant's static QRIS code, on another host of theirs; answered inside the browser too. */
const QRIS_URL = 'https://pay.acme.test/qris.svg';
const QRIS_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="240" viewBox="0 0 24 24"><rect width="24" height="24" fill="#ffffff"/><path d="M2 2h8v8H2zM14 2h8v8h-8zM2 14h8v8H2zM14 14h3v3h-3zM19 19h3v3h-3zM4 4v4h4V4zM16 4v4h4V4zM4 16v4h4v-4z" fill="#000000" fill-rule="evenodd"/></svg>';
const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="32" viewBox="0 0 96 32"><rect width="32" height="32" rx="8" fill="#ffffff"/><path d="M8 22L16 8l8 14z" fill="#0f766e"/><text x="40" y="22" font-family="sans-serif" font-size="14" fill="#ffffff">ACME</text></svg>';

/** This file's own queue: its worker runs these sessions' workflows and no other file's. */
const TASK_QUEUE = `hosted-checkout-${process.pid}`;
// Page loads of this file alone would not reach the per-IP budget, but other files' public calls share 127.0.0.1.
const t = useTestApi({ PUBLIC_RATE_LIMIT_PER_MINUTE: '100000', TEMPORAL_TASK_QUEUE: TASK_QUEUE });

let smtp: TestSmtpServer;
let browser: Browser;
let withJs: BrowserContext;
let withoutJs: BrowserContext;
let ws: CreatedWorkspace;
let products: string[];
/** Console errors, page errors and failed requests of every page, asserted empty after each test. */
let problems: string[] = [];

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  smtp = await startTestSmtpServer();
  browser = await launchChromium('the hosted checkout browser tests');
  withJs = await browser.newContext({ viewport: { width: 820, height: 1000 } });
  withoutJs = await browser.newContext({ viewport: { width: 820, height: 1000 }, javaScriptEnabled: false });
  for (const context of [withJs, withoutJs]) {
    await context.route(`${new URL(LOGO_URL).origin}/**`, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO_SVG }));
    await context.route(`${new URL(QRIS_URL).origin}/**`, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: QRIS_SVG }));
    // What a proxy in front of the service does: links naming PUBLIC_BASE_URL (the receipt's) reach the test API.
    await context.route(`${t.ctx.config.PUBLIC_BASE_URL}/**`, async (route) => {
      const url = new URL(route.request().url());
      await route.fulfill({ response: await route.fetch({ url: `${t.api.baseUrl}${url.pathname}${url.search}` }) });
    });
  }

  ws = await t.ctx.createWorkspace();
  // A digital product with a file (a download) and one that issues licence keys and has no file (a licence).
  products = await insertProducts(t.ctx.sequelize, ws, 2);
  await insertProductFile(ws, products[0]!, { fileName: 'field-guide.pdf' });
  await Product.update({ licenseEnabled: true }, { where: { id: products[1]! } });
  await Account.update(
    {
      name: 'Acme Books',
      brandColor: '#0f766e',
      brandLogo: LOGO_URL,
      manualBankName: 'Bank Central',
      manualAccountNumber: '123-456-789',
      manualAccountHolder: 'Acme Books Ltd',
      manualPaymentInstructions: 'Put the reference in the transfer description.\nWe confirm within one business day.',
      manualQrisImageUrl: QRIS_URL,
      manualQrisInstructions: 'Scan with any banking or e-wallet app.\nWrite the reference in the payment note.',
      manualEwalletInstructions: 'Send the amount to DANA 0812-3456-7890 (Acme Books).',
    },
    { where: { id: ws.accountId } },
  );
});

afterAll(async () => {
  await browser?.close();
  await smtp?.close();
});

afterEach(() => {
  const seen = problems;
  problems = [];
  expect(seen).toEqual([]);
});

const newPage = (context: BrowserContext): Promise<Page> => watchedPage(context, (problem) => problems.push(problem));

function session(overrides: CheckoutOverrides = {}): Promise<CheckoutSession> {
  return insertCheckoutSessionRow(t.ctx.sequelize, ws, {
    description: 'Field guide and a tool licence',
    lineItems: [
      { ...lineOf(products[0]!, 1500, 2, '1'), name: 'Field Guide (PDF)' },
      { ...lineOf(products[1]!, 4900, 1, '2'), name: 'Route Planner Pro' },
    ],
    paymentMethods: ['va', 'qris', 'card', 'ewallet'],
    successUrl: 'https://acme.test/thanks',
    cancelUrl: 'https://acme.test/cart',
    ...overrides,
  });
}

const pageUrl = (id: string) => `${t.api.baseUrl}/checkout/${id}`;
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
const mainText = async (page: Page) => (await page.locator('main').innerText()).replace(/\s+/g, ' ');

async function status(id: string): Promise<{ status: string; payment_method: string | null }> {
  const [row] = await t.ctx.sequelize.query<{ status: string; payment_method: string | null }>('SELECT status, payment_method FROM checkout_sessions WHERE id = :id', {
    type: QueryTypes.SELECT,
    replacements: { id },
  });
  return row!;
}

/** Loads (or reloads) the page and checks what every load of it must have: 200, the strict CSP, no-store. */
async function load(page: Page, id: string, reload = false): Promise<Response> {
  const response = reload ? await page.reload() : await page.goto(pageUrl(id));
  expect(response!.status()).toBe(200);
  const headers = response!.headers();
  expect(headers['content-security-policy']).toMatch(/^default-src 'none';script-src 'none';style-src 'self' 'nonce-[^']+';img-src 'self' https:\/\/cdn\.acme\.test( https:\/\/pay\.acme\.test)?;form-action 'self';base-uri 'none';frame-ancestors 'none'$/);
  expect(headers['cache-control']).toBe('no-store');
  return response!;
}

describe('the hosted checkout page in Chromium', () => {
  it('takes a buyer from the open page through paying and the merchant’s confirmation to the receipt, each state surviving a reload', async () => {
    const coupon = await insertCoupon(ws, { code: 'SPRING10' });
    const s = await session({ discount: { id: coupon.id, code: 'SPRING10', amount: 790 }, amount: 7110 });
    const page = await newPage(withJs);

    // Open: branding, lines, total, methods, pay button.
    await load(page, s.id);
    await expect(page.locator('.merchant-name').innerText()).resolves.toBe('Acme Books');
    // Page-side code as strings: this program is typed for Node, without the DOM's globals.
    expect(await page.evaluate(`document.querySelector('img.logo').complete && document.querySelector('img.logo').naturalWidth > 0`)).toBe(true);
    // The served stylesheet and the nonced brand colour both applied (neither blocked by the CSP).
    expect(await page.evaluate(`getComputedStyle(document.querySelector('button.button')).backgroundColor`)).toBe('rgb(15, 118, 110)');
    let text = await mainText(page);
    expect(text).toContain('Field Guide (PDF) × 2 $30.00');
    expect(text).toContain('Route Planner Pro $49.00');
    expect(text).toContain('Subtotal $79.00 Discount SPRING10 −$7.90 Total $71.10');
    // The session allows card too; local mode never offers it (no payment provider, no card charge).
    expect(await page.getByRole('radio').count()).toBe(3);
    expect(await page.getByRole('radio', { name: 'Card' }).count()).toBe(0);
    await expect(page.getByRole('radio', { name: 'Bank transfer (virtual account)' }).isChecked()).resolves.toBe(true);
    expect(await page.getByRole('link', { name: 'Cancel and return to Acme Books' }).getAttribute('href')).toBe('https://acme.test/cart');
    await shot(page, '01-open');
    await load(page, s.id, true);
    expect(await mainText(page)).toBe(text);

    // Pay: the form posts, the 303 lands back on the page, now awaiting confirmation with the transfer details.
    await page.getByRole('radio', { name: 'QRIS' }).check();
    await Promise.all([page.waitForURL(pageUrl(s.id)), page.getByRole('button', { name: 'Pay $71.10' }).click()]);
    expect(await status(s.id)).toEqual({ status: 'pending_review', payment_method: 'qris' });
    text = await mainText(page);
    // The QRIS instructions, not a bank transfer's.
    for (const part of ['Awaiting confirmation', 'Please pay $71.10 to Acme Books by QRIS', 'Write the reference in the payment note.', s.id]) {
      expect(text).toContain(part);
    }
    for (const part of ['Bank Central', '123-456-789', 'We confirm within one business day.']) expect(text).not.toContain(part);
    expect(await page.evaluate(`document.querySelector('img.qris-code').complete && document.querySelector('img.qris-code').naturalWidth > 0`)).toBe(true);
    expect(await page.locator('form').count()).toBe(0);
    await shot(page, '02-awaiting-confirmation');
    await load(page, s.id, true);
    expect(await mainText(page)).toBe(text);

    // The merchant confirms through the API. No worker polls this file's queue yet, so the session's workflow
    // (started by the API after its commit) cannot have fulfilled it: the receipt says it is being prepared.
    const confirmed = await http<{ data: { status: string } }>(t.api.baseUrl, 'POST', `/api/v1/payment/checkout-sessions/${s.id}/confirm`, { key: ws.secretKey });
    expect({ status: confirmed.status, session: confirmed.body.data.status }).toEqual({ status: 200, session: 'completed' });
    await load(page, s.id, true);
    text = await mainText(page);
    expect(text).toContain('Payment received');
    expect(text).toContain('Your receipt is being prepared');
    await shot(page, '03-receipt-being-prepared');
    await load(page, s.id, true);
    expect(await mainText(page)).toBe(text);

    // A real worker on the queue: the workflow's fulfillment writes one download and one licence, queues the
    // receipt and sends it itself before it ends.
    const mailer = createMailer({ SMTP_URL: smtp.url, EMAIL_FROM: t.ctx.config.EMAIL_FROM });
    const worker = await startTestWorker(t.ctx.sequelize, TASK_QUEUE, { config: t.ctx.config, mailer });
    let receipt;
    try {
      await expect(t.ctx.temporal.workflow.getHandle(workflowIds.checkoutSession(s.id)).result()).resolves.toBe('fulfilled');
      expect((await EmailMessage.findOne({ where: { businessKey: `checkout_receipt:${s.id}` } }))!.status).toBe('sent');
      receipt = (await waitFor(async () => smtp.received.find((m) => m.parsed.subject?.endsWith(`(${s.id})`)), { timeoutMs: 30_000 })).parsed;
    } finally {
      await worker.stop();
      mailer.close();
    }
    const deliveries = await Delivery.findAll({ where: { checkoutSessionId: s.id }, order: [['lineKey', 'ASC']] });
    expect(deliveries.map((d) => [d.lineKey, d.kind])).toEqual([
      ['1', 'download'],
      ['2', 'license'],
    ]);
    const [licence] = await License.findAll({ where: { checkoutSessionId: s.id } });
    expect(deliveries[1]!.licenseKey).toBe(licence!.key);
    const links = createDownloadLinks({ secret: requireEncryptionKey(t.ctx.config), publicBaseUrl: t.ctx.config.PUBLIC_BASE_URL });
    for (const reload of [false, true]) {
      await load(page, s.id, true);
      text = await mainText(page);
      expect({ reload, prepared: text.includes('being prepared') }).toEqual({ reload, prepared: false });
      const href = (await page.getByRole('link', { name: 'field-guide.pdf' }).getAttribute('href'))!;
      expect(href.startsWith(`${t.ctx.config.PUBLIC_BASE_URL}/api/v1/storefront/public/downloads/`)).toBe(true);
      expect(links.verify(href.split('/').pop()!)).toEqual({ deliveryId: deliveries[0]!.id });
      await expect(page.locator('code.license-key').innerText()).resolves.toBe(licence!.key);
      expect(await page.getByRole('link', { name: 'Continue to Acme Books' }).getAttribute('href')).toBe('https://acme.test/thanks');
      expect(text).toContain('Subtotal $79.00 Discount SPRING10 −$7.90 Total $71.10');
    }
    await shot(page, '04-receipt');

    // The receipt e-mail: subtotal, discount and total, and "View your order" on the first line's order page.
    const orderUrl = `${t.ctx.config.PUBLIC_BASE_URL}/order/${deliveries[0]!.id}`;
    expect(receipt.text).toContain('Subtotal: $79.00\nDiscount (SPRING10): −$7.90\nTotal: $71.10');
    expect(receipt.text).toContain(`View your order: ${orderUrl}\n`);
    const viewLinks = [...(receipt.html as string).matchAll(/<a href="([^"]+)"[^>]*>View your order<\/a>/g)].map((m) => m[1]);
    expect(viewLinks).toEqual([orderUrl]);
    expect(receipt.html).not.toContain('acme.test/thanks');

    // The buyer opens it: the order page of that line, with the order's subtotal, discount and total.
    const fromMail = await newPage(withJs);
    expect((await fromMail.goto(viewLinks[0]!))!.status()).toBe(200);
    const orderText = await mainText(fromMail);
    expect(orderText).toContain('Your order Placed on');
    expect(orderText).toContain('Field Guide (PDF)');
    expect(orderText).toContain('Subtotal $79.00 Discount SPRING10 −$7.90 Order total $71.10 (2 items)');
    await expect(fromMail.getByRole('link', { name: 'Download field-guide.pdf' }).count()).resolves.toBe(1);
    await fromMail.close();

    // The completed page links each line's order page too: following the licence line's shows its key.
    await Promise.all([page.waitForURL(`${t.ctx.config.PUBLIC_BASE_URL}/order/${deliveries[1]!.id}`), page.getByRole('link', { name: 'View your order: Route Planner Pro' }).click()]);
    await expect(page.locator('code.license-key').innerText()).resolves.toBe(licence!.key);
    await page.close();
  });

  it('says an expired session expired, and refuses a pay that arrives after expiresAt with the expired page', async () => {
    const page = await newPage(withJs);
    const expired = await session({ status: 'expired' });
    await load(page, expired.id);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('This checkout has expired');
    expect(await page.locator('form').count()).toBe(0);
    await shot(page, '05-expired');

    // Open when loaded; its expiresAt passes while the buyer looks at it.
    const lapsing = await session({ expiresAt: new Date(Date.now() + 3000) });
    await load(page, lapsing.id);
    await page.waitForTimeout(Math.max(0, lapsing.expiresAt.getTime() - Date.now() + 200));
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/pay')), page.getByRole('button', { name: /^Pay / }).click()]);
    expect(response.status()).toBe(409);
    await page.waitForLoadState();
    const text = await mainText(page);
    expect(text).toContain('This checkout can no longer be paid.');
    expect(text).toContain('This checkout has expired');
    expect(await status(lapsing.id)).toEqual({ status: 'open', payment_method: null });
    await load(page, lapsing.id, false);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('This checkout has expired');
    // Chromium logs the refused post's 409 document as a failed load: that line, and nothing else, is expected.
    expect(problems).toEqual(['console error: Failed to load resource: the server responded with a status of 409 (Conflict)']);
    problems = [];
    await page.close();
  });

  it('renders hostile merchant and buyer text as text: nothing of it runs', async () => {
    const hostile = await t.ctx.createWorkspace();
    await Account.update({ name: '<script>window.pwned = "name"</script>Evil & Co' }, { where: { id: hostile.accountId } });
    const [productId] = await insertProducts(t.ctx.sequelize, hostile, 1);
    const s = await insertCheckoutSessionRow(t.ctx.sequelize, hostile, {
      description: '<img src=x onerror="window.pwned = \'description\'">',
      lineItems: [{ ...lineOf(productId!, 990), name: '<script>window.pwned = "line"</script>' }],
    });
    const page = await newPage(withJs);
    const response = await page.goto(pageUrl(s.id));
    expect(response!.status()).toBe(200);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    await expect(page.locator('.merchant-name').innerText()).resolves.toBe('<script>window.pwned = "name"</script>Evil & Co');
    const text = await mainText(page);
    expect(text).toContain('<script>window.pwned = "line"</script>');
    expect(text).toContain('<img src=x onerror="window.pwned = \'description\'">');
    expect(await page.locator('main script, main img').count()).toBe(0);
    await shot(page, '06-escaped');
    await page.close();
  });

  it('works with JavaScript disabled: the pay form is a plain form post', async () => {
    const s = await session();
    const page = await newPage(withoutJs);
    await load(page, s.id);
    await page.getByRole('radio', { name: 'E-wallet' }).check();
    await Promise.all([page.waitForURL(pageUrl(s.id)), page.getByRole('button', { name: 'Pay $79.00' }).click()]);
    expect(await status(s.id)).toEqual({ status: 'pending_review', payment_method: 'ewallet' });
    const text = await mainText(page);
    expect(text).toContain('Awaiting confirmation');
    expect(text).toContain('Send the amount to DANA 0812-3456-7890 (Acme Books).');
    expect(text).not.toContain('Bank Central');
    await shot(page, '07-no-javascript-paid');
    await page.close();
  });
});
