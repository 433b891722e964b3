import { mkdtempSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { Account, type CheckoutLineItem, type Product } from '../../db/models';
import { deliverLine, deliverPurchasedLine } from '../../domain/checkout/fulfillment-delivery';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { createStorage } from '../../lib/storage';
import { insertCartProduct } from '../fixtures/cart';
import { insertCheckoutSessionRow } from '../fixtures/checkout';
import { insertManualOrder, orderLine } from '../fixtures/manual-orders';
import { insertProductFile } from '../fixtures/products';
import { tenantOf } from '../fixtures/workspaces';
import { http, useTestApi } from '../helpers/context';
import { launchChromium, watchedPage } from '../helpers/chromium';

/**
 * The buyer's order page in a real browser: Debian's Chromium driven by playwright-core (the same launch as
 * test/e2e/hosted-checkout.test.ts), against the API on an ephemeral loopback port. Screenshots land in
 * test-artifacts/order-page/ (gitignored).
 */
jest.setTimeout(120_000);

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/order-page');
/** Download links name PUBLIC_BASE_URL; the browser's requests to it are handed to the test API (context.route). */
const PUBLIC_BASE_URL = 'https://shop.order-page.test';
/** The merchant's logo and the product's thumbnail: never reached, answered inside the browser. */
const LOGO_URL = 'https://cdn.acme.test/logo.svg';
const THUMBNAIL_URL = 'https://images.acme.test/guide.svg';
const SVG = (fill: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96"><rect width="96" height="96" rx="12" fill="${fill}"/></svg>`;

const STORAGE = mkdtempSync(path.join(tmpdir(), 'order-page-e2e-'));
// Its own task queue: the merchant's PATCH records e-mail starts that no worker of another test file picks up.
const t = useTestApi({ PUBLIC_RATE_LIMIT_PER_MINUTE: '100000', FILE_STORAGE_DIR: STORAGE, PUBLIC_BASE_URL, TEMPORAL_TASK_QUEUE: `order-page-e2e-${process.pid}` });
const storage = createStorage({ FILE_STORAGE_DIR: STORAGE });
const GUIDE = Buffer.from('%PDF-1.7 the field guide, every trail');

let browser: Browser;
let withJs: BrowserContext;
let withoutJs: BrowserContext;
let ws: CreatedWorkspace;
let guide: Product;
let dongle: Product;
/** Console errors, page errors and failed requests of every page, asserted empty after each test. */
let problems: string[] = [];

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  browser = await launchChromium('the order page browser tests');
  withJs = await browser.newContext({ viewport: { width: 820, height: 1000 }, acceptDownloads: true });
  withoutJs = await browser.newContext({ viewport: { width: 820, height: 1000 }, javaScriptEnabled: false });
  for (const context of [withJs, withoutJs]) {
    await context.route(`${new URL(LOGO_URL).origin}/**`, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: SVG('#ffffff') }));
    await context.route(`${new URL(THUMBNAIL_URL).origin}/**`, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: SVG('#f59e0b') }));
    // What a proxy in front of the service does: the public address reaches the API.
    await context.route(`${PUBLIC_BASE_URL}/**`, async (route) => {
      const url = new URL(route.request().url());
      await route.fulfill({ response: await route.fetch({ url: `${t.api.baseUrl}${url.pathname}${url.search}` }) });
    });
  }

  ws = await t.ctx.createWorkspace();
  await Account.update({ name: 'Acme Books', brandColor: '#0f766e', brandLogo: LOGO_URL }, { where: { id: ws.accountId } });
  guide = await insertCartProduct(ws, { name: 'Field Guide', type: 'digital' });
  await guide.update({ thumbnail: THUMBNAIL_URL });
  const file = await insertProductFile(ws, guide.id, { fileName: 'field-guide.pdf', fileSize: GUIDE.length, mimeType: 'application/pdf' });
  await storage.put(file.storageKey, Readable.from([GUIDE]));
  dongle = await insertCartProduct(ws, { name: 'Route Planner Dongle', type: 'physical', licenseEnabled: true });
});

afterAll(async () => {
  await browser?.close();
  await rm(STORAGE, { recursive: true, force: true });
});

afterEach(() => {
  const seen = problems;
  problems = [];
  expect(seen).toEqual([]);
});

const newPage = (context: BrowserContext): Promise<Page> => watchedPage(context, (problem) => problems.push(problem));

const pageUrl = (id: string) => `${t.api.baseUrl}/order/${id}`;
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
const mainText = async (page: Page) => (await page.locator('main').innerText()).replace(/\s+/g, ' ');
/** The text without the link's expiry, which moves with the clock between loads. */
const stableText = async (page: Page) => (await mainText(page)).replace(/works until .*? UTC/, 'works until …');

/** Loads (or reloads) the page and checks what every load must have: 200, the strict CSP with the image origins, no-store. */
async function load(page: Page, id: string, reload = false): Promise<Response> {
  const response = reload ? await page.reload() : await page.goto(pageUrl(id));
  expect(response!.status()).toBe(200);
  const headers = response!.headers();
  expect(headers['content-security-policy']).toMatch(/^default-src 'none';script-src 'none';style-src 'self' 'nonce-[^']+';img-src 'self' https:\/\/cdn\.acme\.test( https:\/\/images\.acme\.test)?;form-action 'self';base-uri 'none';frame-ancestors 'none'$/);
  expect(headers['cache-control']).toBe('no-store');
  return response!;
}

const line = (product: Product, lineKey: string, unitAmount: number, quantity = 1, name = product.name): CheckoutLineItem => ({
  lineKey,
  productId: product.id,
  variantId: null,
  name,
  quantity,
  unitAmount,
  amount: unitAmount * quantity,
});

/** A completed checkout whose lines fulfillment's own step delivered; the deliveries' ids by line key. */
async function checkout(lines: CheckoutLineItem[], owner: { accountId: string } = ws): Promise<Record<string, string>> {
  const session = await insertCheckoutSessionRow(t.ctx.sequelize, owner, { status: 'completed', lineItems: lines, customerEmail: 'buyer@example.com' });
  const ids: Record<string, string> = {};
  for (const { lineKey } of lines) ids[lineKey] = (await t.ctx.sequelize.transaction((tx) => deliverLine(tx, tenantOf(owner), session, lineKey))).deliveryId;
  return ids;
}

describe('the order page in Chromium', () => {
  it('shows a download delivery, downloads the file through its link, and survives reloads with the count and a fresh link', async () => {
    const ids = await checkout([line(guide, '1', 1500, 2, 'Field Guide (PDF)'), line(dongle, '2', 4900)]);
    const page = await newPage(withJs);
    await load(page, ids['1']!);

    await expect(page.locator('.merchant-name').innerText()).resolves.toBe('Acme Books');
    // Page-side code as strings: this program is typed for Node, without the DOM's globals.
    for (const selector of ['img.logo', 'img.thumbnail']) {
      expect(await page.evaluate(`document.querySelector('${selector}').complete && document.querySelector('${selector}').naturalWidth > 0`)).toBe(true);
    }
    // The shared stylesheet and the nonced brand colour both applied (neither blocked by the CSP).
    expect(await page.evaluate(`getComputedStyle(document.querySelector('a.button')).backgroundColor`)).toBe('rgb(15, 118, 110)');
    const text = await mainText(page);
    for (const part of ['Your order', 'Field Guide (PDF)', '2 × $15.00 · $30.00', 'Status Paid', 'Order total $79.00 (2 items)', 'Receipt sent to b***@example.com', 'Downloads used: 0 of 5']) {
      expect(text).toContain(part);
    }
    // The order's other line is the buyer's too, but its delivery has its own page.
    expect(text).not.toContain('Route Planner Dongle');
    await shot(page, '01-download');

    // The link names PUBLIC_BASE_URL; the browser fetches it (through the route) and saves the file.
    const link = page.getByRole('link', { name: 'Download field-guide.pdf' });
    expect((await link.getAttribute('href'))!.startsWith(`${PUBLIC_BASE_URL}/api/v1/storefront/public/downloads/`)).toBe(true);
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('field-guide.pdf');
    expect(await readFile((await download.path())!)).toEqual(GUIDE);

    await load(page, ids['1']!, true);
    const counted = await stableText(page);
    expect(counted).toContain('Downloads used: 1 of 5');
    await load(page, ids['1']!, true);
    expect(await stableText(page)).toBe(counted);
    // The link of this load works too: a second download.
    const [again] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download field-guide.pdf' }).click()]);
    expect(await readFile((await again.path())!)).toEqual(GUIDE);
    await load(page, ids['1']!, true);
    expect(await mainText(page)).toContain('Downloads used: 2 of 5');
    await shot(page, '02-download-after-reload');
    // Chromium reports a navigation that became a download as an aborted request: those two lines, nothing else.
    expect(problems).toEqual([expect.stringMatching(/^request failed: .*\/downloads\/.* net::ERR_ABORTED$/), expect.stringMatching(/^request failed: .*\/downloads\/.* net::ERR_ABORTED$/)]);
    problems = [];
    await page.close();
  });

  it('shows a manual order’s licence delivery, and the merchant’s shipping update after a reload', async () => {
    const order = await insertManualOrder(t.ctx.sequelize, ws, dongle.id, {
      lines: [orderLine(dongle.id, { productName: 'Route Planner Dongle', productType: 'physical', licenseEnabled: true, variantName: 'Blue', unitAmount: 4900, amount: 4900 })],
      customerEmail: 'siti@example.test',
      paymentStatus: 'payment_confirmed',
      paymentConfirmedAt: new Date(),
    });
    const { deliveryId, licenseKey } = await t.ctx.sequelize.transaction((tx) =>
      deliverPurchasedLine(tx, tenantOf(ws), {
        checkoutSessionId: null,
        manualOrderId: order.id,
        lineKey: '1',
        productId: dongle.id,
        variantId: null,
        quantity: 1,
        customerId: null,
        customerEmail: order.customerEmail,
        metadata: {},
      }),
    );
    const page = await newPage(withJs);
    await load(page, deliveryId);
    await expect(page.locator('code.license-key').innerText()).resolves.toBe(licenseKey!);
    let text = await mainText(page);
    for (const part of ['Route Planner Dongle · Blue', `Order ${order.orderNumber}`, 'Status Payment confirmed', 'Order fulfillment Preparing', 'Receipt sent to s***@example.test', 'Your licence key']) {
      expect(text).toContain(part);
    }
    expect(text).not.toContain('Your download');
    expect(text).not.toContain('Tracking');
    await shot(page, '03-licence');
    await load(page, deliveryId, true);
    expect(await mainText(page)).toBe(text);

    const shipped = await http(t.api.baseUrl, 'PATCH', `/api/v1/manual-orders/${order.id}`, {
      key: ws.secretKey,
      body: { fulfillmentStatus: 'shipped', trackingCourier: 'JNE', trackingNumber: 'JNE0042' },
    });
    expect(shipped.status).toBe(200);
    await load(page, deliveryId, true);
    text = await mainText(page);
    expect(text).toContain('Order fulfillment Shipped');
    expect(text).toContain('Tracking JNE JNE0042');
    await expect(page.locator('code.license-key').innerText()).resolves.toBe(licenseKey!);
    await shot(page, '04-licence-shipped');
    await page.close();
  });

  it('renders a `<script>` product name and hostile merchant text as text: nothing of it runs', async () => {
    const hostile = await t.ctx.createWorkspace();
    await Account.update({ name: '<script>window.pwned = "name"</script>Evil & Co', brandLogo: LOGO_URL }, { where: { id: hostile.accountId } });
    const name = '<script>window.pwned = "product"</script><img src=x onerror="window.pwned = 1">';
    const product = await insertCartProduct(hostile, { name, type: 'physical' });
    // The line's snapshot of the product name, as the storefront's checkout takes it.
    const ids = await checkout([line(product, '1', 990)], hostile);
    const page = await newPage(withJs);
    await load(page, ids['1']!);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    await expect(page.locator('.merchant-name').innerText()).resolves.toBe('<script>window.pwned = "name"</script>Evil & Co');
    await expect(page.locator('.item-name').innerText()).resolves.toBe(name);
    await expect(page.title()).resolves.toBe('Your order · <script>window.pwned = "name"</script>Evil & Co');
    expect(await page.locator('main script, main img:not(.logo)').count()).toBe(0);
    await shot(page, '05-escaped');
    await load(page, ids['1']!, true);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    await page.close();
  });

  it('reads the same without JavaScript, and answers an unknown id with the not-found page', async () => {
    const ids = await checkout([line(guide, '1', 1500)]);
    const scripted = await newPage(withJs);
    await load(scripted, ids['1']!);
    const plain = await newPage(withoutJs);
    await load(plain, ids['1']!);
    expect(await stableText(plain)).toBe(await stableText(scripted));
    const missing = await plain.goto(`${t.api.baseUrl}/order/del_01J00000000000000000000000`);
    expect(missing!.status()).toBe(404);
    expect(await plain.getByRole('heading', { level: 1 }).innerText()).toBe('Order not found');
    await shot(plain, '06-not-found');
    // Chromium logs the 404 document as a failed load: that line, and nothing else, is expected.
    expect(problems).toEqual(['console error: Failed to load resource: the server responded with a status of 404 (Not Found)']);
    problems = [];
    await scripted.close();
    await plain.close();
  });
});
