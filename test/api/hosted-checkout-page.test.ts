import { request } from 'node:http';
import { Parser } from 'htmlparser2';
import { QueryTypes } from 'sequelize';
import { Account, type CheckoutSession, type PaymentMethod } from '../../db/models';
import { createDownloadLinks } from '../../domain/deliveries/links';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { requireEncryptionKey } from '../../lib/config';
import { insertCheckoutSessionRow, lineOf, type CheckoutOverrides } from '../fixtures/checkout';
import { insertSessionDelivery } from '../fixtures/checkout-deliveries';
import { insertProductFile, insertProducts } from '../fixtures/products';
import { useTestApi } from '../helpers/context';

const t = useTestApi();
// Its own API with a per-IP budget of 2, called from a loopback address no other test uses (see trust-proxy.test.ts).
const perIp = useTestApi({ PUBLIC_RATE_LIMIT_PER_MINUTE: '2' });
const SOURCE = `127.${Math.floor(Math.random() * 200) + 20}.${Math.floor(Math.random() * 250) + 1}.${(process.pid % 250) + 2}`;

interface Page {
  status: number;
  headers: Headers;
  html: string;
}

/** A page request that does not follow redirects (the pay form's 303 is asserted as such). */
async function page(method: string, path: string, { form, headers = {}, baseUrl = t.api.baseUrl }: { form?: Record<string, string>; headers?: Record<string, string>; baseUrl?: string } = {}): Promise<Page> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    redirect: 'manual',
    headers: { ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };
const pay = (id: string, paymentMethod?: string, headers: Record<string, string> = SAME_ORIGIN) =>
  page('POST', `/checkout/${id}/pay`, { form: paymentMethod === undefined ? {} : { paymentMethod }, headers });

/** The text a person reads (tags dropped, entities decoded, whitespace collapsed). */
function textOf(html: string): string {
  let text = '';
  const parser = new Parser({ ontext: (chunk) => (text += chunk), onclosetag: () => (text += ' ') }, { decodeEntities: true });
  parser.write(html);
  parser.end();
  return text.replace(/\s+/g, ' ').trim();
}

/** Every element of the page with its attributes, for asserting links, forms and scripts. */
function elementsOf(html: string): Array<{ name: string; attributes: Record<string, string> }> {
  const elements: Array<{ name: string; attributes: Record<string, string> }> = [];
  const parser = new Parser({ onopentag: (name, attributes) => elements.push({ name, attributes }) }, { decodeEntities: true });
  parser.write(html);
  parser.end();
  return elements;
}

/** The session row as stored, to prove a refused pay wrote nothing. */
async function row(id: string) {
  const [found] = await t.ctx.sequelize.query<Record<string, unknown>>('SELECT to_jsonb(s) AS row FROM checkout_sessions s WHERE s.id = :id', {
    type: QueryTypes.SELECT,
    replacements: { id },
  });
  return found?.row as Record<string, unknown>;
}

const QRIS_IMAGE = 'https://pay.acme.example/qris.png';

let ws: CreatedWorkspace;
let products: string[];

beforeAll(async () => {
  ws = await t.ctx.createWorkspace();
  products = await insertProducts(t.ctx.sequelize, ws, 2);
  await Account.update(
    {
      name: 'Acme Books',
      brandColor: '#2563eb',
      manualBankName: 'Bank Central',
      manualAccountNumber: '123-456-789',
      manualAccountHolder: 'Acme Books Ltd',
      manualPaymentInstructions: 'Use the reference below.\nWe confirm within a day.',
      manualQrisImageUrl: QRIS_IMAGE,
      manualQrisInstructions: 'Scan with any QRIS app.\nPut the reference in the note.',
    },
    { where: { id: ws.accountId } },
  );
});

function session(overrides: CheckoutOverrides = {}): Promise<CheckoutSession> {
  return insertCheckoutSessionRow(t.ctx.sequelize, ws, {
    description: 'Two e-books',
    lineItems: [
      { ...lineOf(products[0]!, 1500, 2, '1'), name: 'Field Guide' },
      { ...lineOf(products[1]!, 2000, 1, '2'), name: 'Licensed Tool' },
    ],
    paymentMethods: ['va', 'qris', 'card'],
    successUrl: 'https://acme.example/thanks',
    cancelUrl: 'https://acme.example/cart',
    ...overrides,
  });
}

describe('GET /checkout/:id', () => {
  it('renders an open session: merchant, lines, total, the allowed methods as a form posting to pay, the cancel link', async () => {
    const s = await session();
    const res = await page('GET', `/checkout/${s.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = textOf(res.html);
    expect(text).toContain('Acme Books');
    expect(text).toContain('Two e-books');
    expect(text).toMatch(/Field Guide × 2 \$30\.00/);
    expect(text).toMatch(/Licensed Tool \$20\.00/);
    expect(text).toMatch(/Total \$50\.00/);
    expect(text).toContain('Test mode');
    const elements = elementsOf(res.html);
    const form = elements.find((e) => e.name === 'form')!;
    expect(form.attributes).toMatchObject({ method: 'post', action: `/checkout/${s.id}/pay` });
    const radios = elements.filter((e) => e.name === 'input' && e.attributes.type === 'radio');
    // Card is allowed by the session but never offered in local mode.
    expect(radios.map((r) => r.attributes.value)).toEqual(['va', 'qris']);
    expect(radios.map((r) => 'checked' in r.attributes)).toEqual([true, false]);
    expect(elements.find((e) => e.name === 'a' && e.attributes.href === 'https://acme.example/cart')).toBeDefined();
  });

  it('skips the picker when the session allows one method', async () => {
    const s = await session({ paymentMethods: ['qris'] });
    const res = await page('GET', `/checkout/${s.id}`);
    const inputs = elementsOf(res.html).filter((e) => e.name === 'input');
    expect(inputs.map((e) => e.attributes)).toEqual([{ type: 'hidden', name: 'paymentMethod', value: 'qris' }]);
    expect(textOf(res.html)).toContain('Pay with QRIS');
  });

  it('sends a strict CSP: no script at all, styles from the served stylesheet and one nonced <style>, images from here', async () => {
    const s = await session();
    const res = await page('GET', `/checkout/${s.id}`);
    const csp = res.headers.get('content-security-policy')!;
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
    expect(csp).toBe(`default-src 'none';script-src 'none';style-src 'self' 'nonce-${nonce}';img-src 'self';form-action 'self';base-uri 'none';frame-ancestors 'none'`);
    const elements = elementsOf(res.html);
    expect(elements.filter((e) => e.name === 'script')).toEqual([]);
    expect(elements.filter((e) => Object.keys(e.attributes).some((a) => a === 'style' || a.startsWith('on')))).toEqual([]);
    expect(elements.filter((e) => e.name === 'style').map((e) => e.attributes)).toEqual([{ nonce }]);
    expect(res.html).toContain(':root{--brand:#2563eb;--brand-text:#ffffff}');
    // A fresh nonce per response.
    const again = await page('GET', `/checkout/${s.id}`);
    expect(again.headers.get('content-security-policy')).not.toContain(nonce);

    const stylesheet = elements.find((e) => e.name === 'link' && e.attributes.rel === 'stylesheet')!.attributes.href!;
    expect(stylesheet).toMatch(/^\/checkout\/assets\/pages\.[0-9a-f]{12}\.css$/);
    const css = await page('GET', stylesheet);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(css.html).toContain('.button');
    expect((await page('GET', '/checkout/assets/other.css')).status).toBe(404);
  });

  it('allows the merchant logo’s origin, and only that, for images', async () => {
    const other = await t.ctx.createWorkspace();
    await Account.update({ brandLogo: 'https://cdn.acme.example/logo.png' }, { where: { id: other.accountId } });
    const s = await insertCheckoutSessionRow(t.ctx.sequelize, other);
    const res = await page('GET', `/checkout/${s.id}`);
    expect(res.headers.get('content-security-policy')).toContain("img-src 'self' https://cdn.acme.example;");
    expect(elementsOf(res.html).find((e) => e.name === 'img')!.attributes).toMatchObject({ src: 'https://cdn.acme.example/logo.png', referrerpolicy: 'no-referrer' });
  });

  it('escapes merchant and buyer text, and drops a colour or URL it cannot trust', async () => {
    const hostile = await t.ctx.createWorkspace();
    await Account.update(
      { name: '<script>alert("m")</script>', brandColor: 'red}</style><script>x()</script>', brandLogo: 'javascript:alert(1)', manualPaymentInstructions: '<b>bold</b>\nline two' },
      { where: { id: hostile.accountId } },
    );
    const [productId] = await insertProducts(t.ctx.sequelize, hostile, 1);
    const s = await insertCheckoutSessionRow(t.ctx.sequelize, hostile, {
      description: '"><img src=x onerror=alert(1)>',
      lineItems: [{ ...lineOf(productId!, 100), name: '<script>alert("line")</script>' }],
      successUrl: 'javascript:alert(1)',
      cancelUrl: 'data:text/html,<script>alert(1)</script>',
    });
    const open = await page('GET', `/checkout/${s.id}`);
    expect(open.status).toBe(200);
    const elements = elementsOf(open.html);
    expect(elements.filter((e) => ['script', 'img', 'style'].includes(e.name))).toEqual([]);
    expect(elements.filter((e) => e.name === 'a')).toEqual([]);
    const text = textOf(open.html);
    expect(text).toContain('<script>alert("m")</script>');
    expect(text).toContain('<script>alert("line")</script>');
    expect(text).toContain('"><img src=x onerror=alert(1)>');

    expect((await pay(s.id, 'va')).status).toBe(303);
    const pending = await page('GET', `/checkout/${s.id}`);
    expect(pending.html).toContain('&lt;b&gt;bold&lt;/b&gt;<br>line two');
    expect(elementsOf(pending.html).filter((e) => ['script', 'b'].includes(e.name))).toEqual([]);
  });

  it('never shows the workspace id, metadata or the buyer’s contact details', async () => {
    const s = await session({ metadata: { internalNote: 'secret-note-42' }, customerEmail: 'private.buyer@example.com', customerName: 'Private Name' });
    const html = (await page('GET', `/checkout/${s.id}`)).html;
    for (const secret of [ws.accountId, 'secret-note-42', 'private.buyer@example.com', 'Private Name']) expect(html).not.toContain(secret);
  });

  it('shows no test-mode banner on a live session', async () => {
    const [liveProduct] = await insertProducts(t.ctx.sequelize, { accountId: ws.accountId, environment: 'live' }, 1);
    const s = await insertCheckoutSessionRow(t.ctx.sequelize, { accountId: ws.accountId, environment: 'live' }, { lineItems: [lineOf(liveProduct!)] });
    const res = await page('GET', `/checkout/${s.id}`);
    expect(res.status).toBe(200);
    expect(textOf(res.html)).not.toContain('Test mode');
  });

  it('answers an unknown or malformed id with a 404 page, an undecodable one with 400, and other methods with 405 and Allow', async () => {
    for (const path of ['/checkout/cs_01J00000000000000000000000', '/checkout/%3Cscript%3E', '/checkout/cs_x/other', '/checkout']) {
      const res = await page('GET', path);
      expect({ path, status: res.status, type: res.headers.get('content-type') }).toEqual({ path, status: 404, type: 'text/html; charset=utf-8' });
      expect(textOf(res.html)).toContain('Checkout not found');
      expect(res.html).not.toContain('<script>');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'none'");
    }
    const undecodable = await page('GET', '/checkout/%FF');
    expect([undecodable.status, undecodable.headers.get('content-type')]).toEqual([400, 'text/html; charset=utf-8']);
    expect(textOf(undecodable.html)).toContain('Request not understood');
    const s = await session();
    const put = await page('PUT', `/checkout/${s.id}`);
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    const get = await page('GET', `/checkout/${s.id}/pay`);
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    expect(textOf(get.html)).toContain('Not allowed');
  });

  it('renders pending_review with the merchant’s transfer details and “awaiting confirmation”', async () => {
    const s = await session({ status: 'pending_review' });
    const res = await page('GET', `/checkout/${s.id}`);
    expect(res.status).toBe(200);
    const text = textOf(res.html);
    for (const part of ['Awaiting confirmation', 'Bank Central', '123-456-789', 'Acme Books Ltd', 'We confirm within a day.', s.id, '$50.00', 'Bank transfer (virtual account)']) {
      expect(text).toContain(part);
    }
    expect(elementsOf(res.html).filter((e) => e.name === 'form')).toEqual([]);
  });

  it('says when the merchant has published no details for the method paid with (paid before they were cleared)', async () => {
    const bare = await t.ctx.createWorkspace();
    const s = await insertCheckoutSessionRow(t.ctx.sequelize, bare, { status: 'pending_review' });
    expect(textOf((await page('GET', `/checkout/${s.id}`)).html)).toContain('has not published payment details for this method on this page; they will send them to you.');
  });

  it('offers in local mode only the methods the merchant gave instructions for, never card; none at all is said, with no form', async () => {
    const shop = await t.ctx.createWorkspace();
    const all = { paymentMethods: ['qris', 'va', 'card', 'ewallet', 'intl_wallet'] as PaymentMethod[] };
    const offered = async () => {
      const res = await page('GET', `/checkout/${(await insertCheckoutSessionRow(t.ctx.sequelize, shop, all)).id}`);
      return { html: res.html, methods: elementsOf(res.html).filter((e) => e.name === 'input' && e.attributes.name === 'paymentMethod').map((e) => e.attributes.value) };
    };
    const none = await offered();
    expect(none.methods).toEqual([]);
    expect(elementsOf(none.html).filter((e) => e.name === 'form')).toEqual([]);
    expect(textOf(none.html)).toContain('has not set up a way to pay on this page yet');

    await Account.update({ manualEwalletInstructions: 'Send to 0812-000-111 on DANA.' }, { where: { id: shop.accountId } });
    expect((await offered()).methods).toEqual(['ewallet']);
    // Existing bank-transfer settings keep offering the bank transfer; a QRIS image alone is enough for QRIS.
    await Account.update({ manualAccountNumber: '987-654', manualQrisImageUrl: QRIS_IMAGE, manualIntlWalletInstructions: 'PayPal: pay@acme.example' }, { where: { id: shop.accountId } });
    expect((await offered()).methods).toEqual(['qris', 'va', 'ewallet', 'intl_wallet']);
  });

  it('shows the chosen method’s instructions while awaiting confirmation: the QRIS code and its text, or the wallet’s text, never the bank’s', async () => {
    const viaQris = await session({ status: 'pending_review' });
    await viaQris.update({ paymentMethod: 'qris' });
    const res = await page('GET', `/checkout/${viaQris.id}`);
    const text = textOf(res.html);
    for (const part of ['Please pay $50.00 to Acme Books by QRIS', 'Scan with any QRIS app.', 'Put the reference in the note.', viaQris.id]) expect(text).toContain(part);
    for (const part of ['Bank Central', '123-456-789', 'We confirm within a day.']) expect(text).not.toContain(part);
    expect(elementsOf(res.html).find((e) => e.name === 'img' && e.attributes.class === 'qris-code')?.attributes).toMatchObject({ src: QRIS_IMAGE, referrerpolicy: 'no-referrer' });
    expect(res.headers.get('content-security-policy')).toContain("img-src 'self' https://pay.acme.example;");

    const shop = await t.ctx.createWorkspace();
    await Account.update({ manualBankName: 'Bank Central', manualEwalletInstructions: 'Send to <0812> on OVO.' }, { where: { id: shop.accountId } });
    const viaWallet = await insertCheckoutSessionRow(t.ctx.sequelize, shop, { status: 'pending_review' });
    await viaWallet.update({ paymentMethod: 'ewallet' });
    const wallet = await page('GET', `/checkout/${viaWallet.id}`);
    expect(textOf(wallet.html)).toContain('Send to <0812> on OVO.');
    expect(textOf(wallet.html)).not.toContain('Bank Central');
    expect(wallet.html).toContain('Send to &lt;0812&gt; on OVO.');
    expect(elementsOf(wallet.html).filter((e) => e.name === 'img')).toEqual([]);
  });

  it('renders a completed session as a receipt: re-signed download links, licence keys, the success link', async () => {
    const s = await session({ status: 'completed' });
    const file = await insertProductFile(ws, products[0]!, { fileName: 'field-guide.pdf' });
    const download = await insertSessionDelivery(ws, s.id, { kind: 'download', lineKey: '1', productId: products[0]!, fileId: file.id });
    await insertSessionDelivery(ws, s.id, { kind: 'license', lineKey: '2', productId: products[1]!, licenseKey: 'ACME-ABCD-EFGH-JKLM-NPQR' });

    const res = await page('GET', `/checkout/${s.id}`);
    expect(res.status).toBe(200);
    const text = textOf(res.html);
    expect(text).toContain('Payment received');
    expect(text).toContain('ACME-ABCD-EFGH-JKLM-NPQR');
    expect(text).not.toContain('being prepared');
    const links = elementsOf(res.html).filter((e) => e.name === 'a').map((e) => e.attributes.href!);
    const signer = createDownloadLinks({ secret: requireEncryptionKey(t.ctx.config), publicBaseUrl: t.ctx.config.PUBLIC_BASE_URL });
    const downloadUrl = links.find((href) => href.includes('/downloads/'))!;
    expect(downloadUrl.startsWith(`${t.ctx.config.PUBLIC_BASE_URL}/api/v1/storefront/public/downloads/`)).toBe(true);
    expect(signer.verify(downloadUrl.split('/').pop()!)).toEqual({ deliveryId: download.id });
    expect(links).toContain('https://acme.example/thanks');
    expect(elementsOf(res.html).find((e) => e.name === 'a' && e.attributes.href === downloadUrl)).toBeDefined();
    expect(text).toContain('field-guide.pdf');
  });

  it('links each delivered line’s order page, and shows the key of a licensed download as well as a licence’s', async () => {
    const s = await session({ status: 'completed' });
    const file = await insertProductFile(ws, products[0]!, { fileName: 'tool-installer.exe' });
    const download = await insertSessionDelivery(ws, s.id, { kind: 'download', lineKey: '1', productId: products[0]!, fileId: file.id, licenseKey: 'ACME-DOWN-LOAD-KEY1-0001' });
    const licence = await insertSessionDelivery(ws, s.id, { kind: 'license', lineKey: '2', productId: products[1]!, licenseKey: 'ACME-LICE-NCEK-EY22-0002' });

    const res = await page('GET', `/checkout/${s.id}`);
    const text = textOf(res.html);
    expect(text).toContain('Your licence keys Field Guide ACME-DOWN-LOAD-KEY1-0001 Licensed Tool ACME-LICE-NCEK-EY22-0002');
    const orderLinks = elementsOf(res.html).filter((e) => e.name === 'a' && e.attributes.class === 'order-page').map((e) => e.attributes.href);
    expect(orderLinks).toEqual([`${t.ctx.config.PUBLIC_BASE_URL}/order/${download.id}`, `${t.ctx.config.PUBLIC_BASE_URL}/order/${licence.id}`]);
    expect(text).toContain('View your order: Field Guide View your order: Licensed Tool');
  });

  it('says the receipt is being prepared until fulfillment has written every line’s delivery', async () => {
    const s = await session({ status: 'completed' });
    expect(textOf((await page('GET', `/checkout/${s.id}`)).html)).toContain('Your receipt is being prepared');
    await insertSessionDelivery(ws, s.id, { kind: 'license', lineKey: '2', productId: products[1]!, licenseKey: 'ACME-2222-3333-4444-5555' });
    const partial = textOf((await page('GET', `/checkout/${s.id}`)).html);
    expect(partial).toContain('ACME-2222-3333-4444-5555');
    expect(partial).toContain('Your receipt is being prepared');
    await insertSessionDelivery(ws, s.id, { kind: 'manual', lineKey: '1', productId: products[0]! });
    const done = textOf((await page('GET', `/checkout/${s.id}`)).html);
    expect(done).not.toContain('being prepared');
    expect(done).toContain('Field Guide Delivered by the merchant directly.');
  });

  it('shows a spent download as such, and a deleted file as unavailable', async () => {
    const s = await session({ status: 'completed' });
    const file = await insertProductFile(ws, products[0]!, { fileName: 'spent.pdf' });
    await insertSessionDelivery(ws, s.id, { kind: 'download', lineKey: '1', productId: products[0]!, fileId: file.id, downloadLimit: 2, downloadCount: 2 });
    await insertSessionDelivery(ws, s.id, { kind: 'download', lineKey: '2', productId: products[1]!, fileId: 'file_gone' });
    const text = textOf((await page('GET', `/checkout/${s.id}`)).html);
    expect(text).toContain('spent.pdf Field Guide · download limit reached');
    expect(text).toContain('Licensed Tool This file is no longer available; contact Acme Books.');
  });

  it('renders expired sessions, and open ones past expiresAt, as expired', async () => {
    const expired = await session({ status: 'expired' });
    const lapsed = await session();
    await lapsed.update({ expiresAt: new Date(Date.now() - 1000) });
    for (const s of [expired, lapsed]) {
      const res = await page('GET', `/checkout/${s.id}`);
      expect(res.status).toBe(200);
      expect(textOf(res.html)).toContain('This checkout has expired');
      expect(elementsOf(res.html).filter((e) => e.name === 'form')).toEqual([]);
    }
    // A failed session had a method (a provider payment that failed): the row's constraints want one.
    const failed = await session({ status: 'pending_review' });
    await failed.update({ status: 'failed' });
    expect(textOf((await page('GET', `/checkout/${failed.id}`)).html)).toContain('could not be completed');
  });
});

describe('POST /checkout/:id/pay', () => {
  it('records the method, moves the session to pending_review and answers 303 back to the page', async () => {
    const s = await session();
    const res = await pay(s.id, 'qris');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/checkout/${s.id}`);
    expect(await row(s.id)).toMatchObject({ status: 'pending_review', payment_method: 'qris' });
    expect(textOf((await page('GET', `/checkout/${s.id}`)).html)).toContain('Awaiting confirmation');
  });

  it('accepts a post whose Origin is this host, and one without any browser header (not a browser form)', async () => {
    const a = await session();
    expect((await pay(a.id, 'va', { origin: t.api.baseUrl })).status).toBe(303);
    const b = await session();
    expect((await pay(b.id, 'va', {})).status).toBe(303);
    expect(await row(b.id)).toMatchObject({ status: 'pending_review' });
  });

  it('refuses a cross-site post (CSRF) with a 403 page, writing nothing', async () => {
    const s = await session();
    const before = await row(s.id);
    const attempts: Array<Record<string, string>> = [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'https://evil.example' }, { origin: 'null' }];
    for (const headers of attempts) {
      const res = await pay(s.id, 'va', headers);
      expect({ headers, status: res.status }).toEqual({ headers, status: 403 });
      expect(textOf(res.html)).toContain('can only be submitted from its own checkout page');
    }
    expect(await row(s.id)).toEqual(before);
  });

  it('refuses a method outside the session’s set, or none, with 400 and the open page, writing nothing', async () => {
    const s = await session();
    const before = await row(s.id);
    // Card and the e-wallet are in the session's set but not offered: the merchant gave no instructions for them.
    for (const method of ['card', 'ewallet', 'intl_wallet', 'bitcoin', undefined]) {
      const res = await pay(s.id, method);
      expect({ method, status: res.status }).toEqual({ method, status: 400 });
      const text = textOf(res.html);
      expect(text).toContain('Choose one of the payment methods below.');
      expect(elementsOf(res.html).find((e) => e.name === 'form')).toBeDefined();
    }
    expect(await row(s.id)).toEqual(before);
  });

  it('refuses to pay a session that is not open with 409 and its current page, not a 500', async () => {
    const pending = await session({ status: 'pending_review' });
    const completed = await session({ status: 'completed' });
    const expired = await session({ status: 'expired' });
    const lapsed = await session();
    await lapsed.update({ expiresAt: new Date(Date.now() - 1000) });
    const cases = [
      [pending, 'Awaiting confirmation'],
      [completed, 'Payment received'],
      [expired, 'This checkout has expired'],
      [lapsed, 'This checkout has expired'],
    ] as const;
    for (const [s, heading] of cases) {
      const before = await row(s.id);
      const res = await pay(s.id, 'va');
      expect({ id: s.id, status: res.status }).toEqual({ id: s.id, status: 409 });
      const text = textOf(res.html);
      expect(text).toContain('This checkout can no longer be paid.');
      expect(text).toContain(heading);
      expect(await row(s.id)).toEqual(before);
    }
  });

  it('answers an unknown session with the 404 page, and an oversized form with 413', async () => {
    const unknown = await pay('cs_01J00000000000000000000000', 'va');
    expect(unknown.status).toBe(404);
    expect(textOf(unknown.html)).toContain('Checkout not found');
    const s = await session();
    const big = await page('POST', `/checkout/${s.id}/pay`, { form: { paymentMethod: 'va', filler: 'x'.repeat(4000) }, headers: SAME_ORIGIN });
    expect(big.status).toBe(413);
    expect(await row(s.id)).toMatchObject({ status: 'open' });
  });
});

describe('rate limit', () => {
  function getFrom(source: string, path: string): Promise<{ status: number; type: string | undefined; body: string }> {
    const url = new URL(perIp.api.baseUrl);
    return new Promise((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, localAddress: source, path }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('counts page loads against the public per-IP limit and answers 429 as a page', async () => {
    const s = await session();
    expect((await getFrom(SOURCE, `/checkout/${s.id}`)).status).toBe(200);
    expect((await getFrom(SOURCE, `/checkout/${s.id}`)).status).toBe(200);
    const limited = await getFrom(SOURCE, `/checkout/${s.id}`);
    expect([limited.status, limited.type]).toEqual([429, 'text/html; charset=utf-8']);
    expect(textOf(limited.body)).toContain('Too many requests');
    // The stylesheet is not counted: a page load is one request.
    const css = /href="(\/checkout\/assets\/pages\.[0-9a-f]+\.css)"/.exec((await page('GET', `/checkout/${s.id}`)).html)![1]!;
    expect((await getFrom(SOURCE, css)).status).toBe(200);
  });
});
