import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Account, type CheckoutLineItem, type DiscountCode, type Product } from '../../db/models';
import { deliverLine } from '../../domain/checkout/fulfillment-delivery';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { insertCartProduct, insertCoupon } from '../fixtures/cart';
import { insertCheckoutSessionRow } from '../fixtures/checkout';
import { insertProductFile } from '../fixtures/products';
import { tenantOf } from '../fixtures/workspaces';
import { useTestApi } from '../helpers/context';
import { launchChromium } from '../helpers/chromium';

/**
 * The buyer pages' layout on a phone (390 px, an iPhone's width) and a desktop (1280 px), in Debian's Chromium:
 * every state of the hosted checkout page and of the order page, filled with the longest values a merchant or
 * buyer can give (an unbroken product name, a long masked e-mail, account number, licence key, discount code),
 * must keep every box and every line of text inside the card, with no sideways scrolling. Screenshots land
 * beside the other browser tests' ones: test-artifacts/hosted-checkout/ and test-artifacts/order-page/
 * (gitignored), named `layout-<state>-<width>.png`.
 */
jest.setTimeout(120_000);

const ARTIFACTS = { checkout: path.resolve(__dirname, '../../test-artifacts/hosted-checkout'), order: path.resolve(__dirname, '../../test-artifacts/order-page') };
const WIDTHS = [390, 1280] as const;
const LOGO_URL = 'https://cdn.acme.test/logo.svg';
const QRIS_URL = 'https://pay.acme.test/qris.svg';
const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="32"><rect width="96" height="32" rx="6" fill="#ffffff"/></svg>';
const QRIS_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="240" viewBox="0 0 24 24"><rect width="24" height="24" fill="#ffffff"/><path d="M2 2h8v8H2zM14 2h8v8h-8zM2 14h8v8H2zM14 14h3v3h-3zM19 19h3v3h-3zM4 4v4h4V4zM16 4v4h4V4zM4 16v4h4v-4z" fill="#000000" fill-rule="evenodd"/></svg>';

const t = useTestApi({ PUBLIC_RATE_LIMIT_PER_MINUTE: '100000' });

/** Long values with nowhere to break, as a merchant or a buyer may well type them. */
const LONG = {
  merchant: 'Toko Buku dan Alat Tulis Sejahtera Abadi Jayakarta Internasional',
  email: 'bartholomew.featherstonehaugh+orders@pelanggan-setia.mail.example-company.co.id',
  line: 'TheCompleteFieldGuideToIndonesianBirdsButterfliesAndDragonflies_SecondEdition_2026',
  file: 'the-complete-field-guide-to-indonesian-birds-second-edition-2026-final.pdf',
  code: 'WELCOMEBACKSPRINGLOYALTY2026',
  bank: 'Bank Pembangunan Daerah Jawa Barat dan Banten Syariah',
  account: '00123456789012345678901234567890123456789012345678',
  holder: 'PT Toko Buku dan Alat Tulis Sejahtera Abadi Jayakarta Internasional Tbk',
  instructions: 'Transfer the exact amount and put the reference in the description: https://acme.example/payments/how-to-pay-by-bank-transfer-without-mistakes',
};

let browser: Browser;
let ws: CreatedWorkspace;
let guide: Product;
let tool: Product;
let coupon: DiscountCode;
/** Page errors and failed requests, asserted empty after each test. */
let problems: string[] = [];

beforeAll(async () => {
  for (const dir of Object.values(ARTIFACTS)) await mkdir(dir, { recursive: true });
  browser = await launchChromium("the buyer pages' browser tests");

  ws = await t.ctx.createWorkspace();
  await Account.update(
    {
      name: LONG.merchant,
      brandColor: '#7c3aed',
      brandLogo: LOGO_URL,
      manualBankName: LONG.bank,
      manualAccountNumber: LONG.account,
      manualAccountHolder: LONG.holder,
      manualPaymentInstructions: LONG.instructions,
      manualQrisImageUrl: QRIS_URL,
      manualQrisInstructions: 'Scan with any banking or e-wallet app.',
    },
    { where: { id: ws.accountId } },
  );
  guide = await insertCartProduct(ws, { name: LONG.line, type: 'digital' });
  await insertProductFile(ws, guide.id, { fileName: LONG.file });
  tool = await insertCartProduct(ws, { name: 'Route Planner Pro', type: 'physical', licenseEnabled: true });
  coupon = await insertCoupon(ws, { code: LONG.code });
});

afterAll(async () => {
  await browser?.close();
});

afterEach(() => {
  const seen = problems;
  problems = [];
  expect(seen).toEqual([]);
});

async function contextOf(width: number): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  await context.route(`${new URL(LOGO_URL).origin}/**`, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO_SVG }));
  await context.route(`${new URL(QRIS_URL).origin}/**`, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: QRIS_SVG }));
  return context;
}

const line = (product: Product, lineKey: string, unitAmount: number, quantity = 1): CheckoutLineItem => ({
  lineKey,
  productId: product.id,
  variantId: null,
  name: product.name,
  quantity,
  unitAmount,
  amount: unitAmount * quantity,
});

/**
 * What lies outside where it belongs, in the page as laid out: the document wider than the viewport, an element
 * or a line of text of the card past the card's edges, anything past the viewport's. Page-side code as a string:
 * this program is typed for Node, without the DOM's globals.
 */
const OVERFLOWS = `(() => {
  const found = [];
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth) found.push('document ' + root.scrollWidth + 'px wide in ' + root.clientWidth + 'px');
  const card = document.querySelector('main').getBoundingClientRect();
  const describe = (node) => (node.nodeType === 3 ? 'text "' + node.textContent.trim().slice(0, 40) + '"' : node.tagName.toLowerCase() + (node.className ? '.' + node.className : ''));
  const check = (node, rect, within) => {
    if (rect.width === 0) return;
    if (rect.left < within.left - 0.5 || rect.right > within.right + 0.5) found.push(describe(node) + ' spans ' + Math.round(rect.left) + '-' + Math.round(rect.right) + ', outside ' + Math.round(within.left) + '-' + Math.round(within.right));
  };
  const viewport = { left: 0, right: root.clientWidth };
  for (const element of document.querySelectorAll('body *')) check(element, element.getBoundingClientRect(), element.closest('main') ? card : viewport);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const rect of range.getClientRects()) check(node, rect, node.parentElement.closest('main') ? card : viewport);
  }
  return found;
})()`;

/** Loads `url` at each width, checks nothing overflows, and saves `layout-<state>-<width>.png` in `dir`. */
async function shoot(url: string, state: string, dir: string, expectStatus: number, expectText: string[]): Promise<void> {
  for (const width of WIDTHS) {
    const context = await contextOf(width);
    const page: Page = await context.newPage();
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`));
    const response = await page.goto(url);
    expect({ state, width, status: response!.status() }).toEqual({ state, width, status: expectStatus });
    // Every image (logo, QRIS code) decoded before the layout is measured.
    await page.waitForFunction(`[...document.images].every((img) => img.complete)`);
    const text = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
    for (const part of expectText) expect({ state, width, has: part, found: text.includes(part) }).toEqual({ state, width, has: part, found: true });
    expect({ state, width, overflows: await page.evaluate<string[]>(OVERFLOWS) }).toEqual({ state, width, overflows: [] });
    await page.screenshot({ path: path.join(dir, `layout-${state}-${width}.png`), fullPage: true });
    await context.close();
  }
}

describe('the buyer pages at 390 and 1280 px', () => {
  it('lays out every state of the hosted checkout page inside the card, long values wrapped', async () => {
    const lines = [line(guide, '1', 1500, 2), line(tool, '2', 4900)];
    const sessionOf = (status?: 'pending_review' | 'completed' | 'expired') =>
      insertCheckoutSessionRow(t.ctx.sequelize, ws, {
        status,
        description: 'Field guide and a route planner licence',
        lineItems: lines,
        discount: { id: coupon.id, code: LONG.code, amount: 790 },
        amount: 7110,
        paymentMethods: ['va', 'qris', 'card'],
        customerEmail: LONG.email,
        successUrl: 'https://acme.test/thanks',
        cancelUrl: 'https://acme.test/cart',
      });
    const url = (id: string) => `${t.api.baseUrl}/checkout/${id}`;
    const summary = `Subtotal $79.00 Discount ${LONG.code} −$7.90 Total $71.10`;

    await shoot(url((await sessionOf()).id), 'open', ARTIFACTS.checkout, 200, [LONG.line, summary, 'Pay $71.10']);
    await shoot(url((await sessionOf('pending_review')).id), 'pending-review', ARTIFACTS.checkout, 200, ['Awaiting confirmation', LONG.bank, LONG.account, LONG.holder, summary]);
    const viaQris = await sessionOf('pending_review');
    await viaQris.update({ paymentMethod: 'qris' });
    await shoot(url(viaQris.id), 'pending-review-qris', ARTIFACTS.checkout, 200, ['Awaiting confirmation', 'Scan with any banking or e-wallet app.', summary]);
    const completed = await sessionOf('completed');
    for (const { lineKey } of lines) await t.ctx.sequelize.transaction((tx) => deliverLine(tx, tenantOf(ws), completed, lineKey));
    await shoot(url(completed.id), 'completed', ARTIFACTS.checkout, 200, ['Payment received', LONG.file, 'Your licence keys', `View your order: ${LONG.line}`, summary]);
    await shoot(url((await sessionOf('expired')).id), 'expired', ARTIFACTS.checkout, 200, ['This checkout has expired', summary]);
    await shoot(url('cs_01J00000000000000000000000'), 'not-found', ARTIFACTS.checkout, 404, ['Checkout not found']);
  });

  it('lays out the order page inside the card, the masked e-mail and long values wrapped', async () => {
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, ws, {
      status: 'completed',
      lineItems: [line(guide, '1', 1500, 2), line(tool, '2', 4900)],
      discount: { id: coupon.id, code: LONG.code, amount: 790 },
      amount: 7110,
      customerEmail: LONG.email,
    });
    const ids: string[] = [];
    for (const lineKey of ['1', '2']) ids.push((await t.ctx.sequelize.transaction((tx) => deliverLine(tx, tenantOf(ws), session, lineKey))).deliveryId);
    const url = (id: string) => `${t.api.baseUrl}/order/${id}`;
    const totals = `Subtotal $79.00 Discount ${LONG.code} −$7.90 Order total $71.10 (2 items)`;
    await shoot(url(ids[0]!), 'download', ARTIFACTS.order, 200, [LONG.line, 'b***@pelanggan-setia.mail.example-company.co.id', totals, `Download ${LONG.file}`]);
    await shoot(url(ids[1]!), 'licence', ARTIFACTS.order, 200, ['Route Planner Pro', 'Your licence key', totals]);
    await shoot(url('del_01J00000000000000000000000'), 'not-found', ARTIFACTS.order, 404, ['Order not found']);
  });
});
