import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Parser } from 'htmlparser2';
import { QueryTypes } from 'sequelize';
import { Account, type CheckoutLineItem, type CheckoutSession, type Product } from '../../db/models';
import { deliverLine, deliverPurchasedLine } from '../../domain/checkout/fulfillment-delivery';
import { DOWNLOAD_LINK_TTL_MS } from '../../domain/deliveries/links';
import { GLOBAL_STOREFRONT_SEGMENTS } from '../../domain/storefront/merchant';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { newId } from '../../lib/ids';
import { createStorage } from '../../lib/storage';
import { insertCartProduct, insertCoupon } from '../fixtures/cart';
import { insertCheckoutSessionRow } from '../fixtures/checkout';
import { insertDelivery } from '../fixtures/deliveries';
import { insertManualOrder, orderLine } from '../fixtures/manual-orders';
import { insertProductFile } from '../fixtures/products';
import { tenantOf, type FixtureOwner } from '../fixtures/workspaces';
import { http, useTestApi, type HttpResult } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { rawGet } from '../helpers/storefront';

const STORAGE = mkdtempSync(path.join(tmpdir(), 'order-page-'));
const t = useTestApi({ FILE_STORAGE_DIR: STORAGE });
afterAll(() => rm(STORAGE, { recursive: true, force: true }));
const storage = createStorage({ FILE_STORAGE_DIR: STORAGE });

const PUBLIC = '/api/v1/storefront/public';
const BUYER_EMAIL = 'buyer.person@example.com';
const LOGO = 'https://cdn.acme.example/logo.svg';
const THUMBNAIL = 'https://images.acme.example/guide.png';

type Json = Record<string, unknown>;
type Envelope = { data: Json; error: { code: string; message: string } | null; meta: Json };

const orderOf = (id: string, baseUrl = t.api.baseUrl) => http<Envelope>(baseUrl, 'GET', `${PUBLIC}/order/${id}`);
/** The path of a signed link (it names PUBLIC_BASE_URL; the test API listens elsewhere). */
const pathOf = (url: string) => new URL(url).pathname;

/** Every row of the workspace a read could touch, to prove the order page writes nothing. */
async function writesOf(accountId: string) {
  const result: Record<string, unknown[]> = {};
  for (const table of ['deliveries', 'licenses', 'checkout_sessions', 'manual_orders', 'events', 'audit_logs']) {
    result[table] = await t.ctx.sequelize.query(`SELECT to_jsonb(t) AS row FROM ${table} t WHERE account_id = :accountId ORDER BY 1`, {
      type: QueryTypes.SELECT,
      replacements: { accountId },
    });
  }
  return result;
}

interface Store {
  ws: CreatedWorkspace;
  /** Digital, with an uploaded file. */
  guide: Product;
  /** Digital, licensed, with an uploaded file: its download carries a key too. */
  app: Product;
  /** Physical, licensed, no file: a licence-only delivery. */
  dongle: Product;
  guideContent: Buffer;
}

/** A branded store with three products; the guide and the app have real blobs in storage. */
async function newStore(): Promise<Store> {
  const ws = await t.ctx.createWorkspace();
  await Account.update({ name: 'Acme Books', brandColor: '#0f766e', brandLogo: LOGO }, { where: { id: ws.accountId } });
  const guide = await insertCartProduct(ws, { name: 'Field Guide', type: 'digital' });
  await guide.update({ thumbnail: THUMBNAIL });
  const app = await insertCartProduct(ws, { name: 'Route Planner', type: 'digital', licenseEnabled: true });
  const dongle = await insertCartProduct(ws, { name: 'Dongle', type: 'physical', licenseEnabled: true });
  const guideContent = Buffer.from('%PDF-1.7 the field guide');
  for (const [product, content, fileName] of [
    [guide, guideContent, 'field-guide.pdf'],
    [app, Buffer.from('MZ installer'), 'route-planner.exe'],
  ] as const) {
    const file = await insertProductFile(ws, product.id, { fileName, fileSize: content.length });
    await storage.put(file.storageKey, Readable.from([content]));
  }
  return { ws, guide, app, dongle, guideContent };
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

/** A completed checkout of `lines`, each delivered by fulfillment's own step (deliverLine): the deliveries' ids by line key. */
async function checkout(owner: FixtureOwner, lines: CheckoutLineItem[], extra: Partial<Parameters<typeof insertCheckoutSessionRow>[2]> = {}) {
  const session = await insertCheckoutSessionRow(t.ctx.sequelize, owner, {
    status: 'completed',
    lineItems: lines,
    customerEmail: BUYER_EMAIL,
    customerName: 'Budi Buyer',
    customerPhone: '+62 811 000 111',
    metadata: { campaign: 'secret-campaign' },
    ...extra,
  });
  const deliveries: Record<string, string> = {};
  for (const { lineKey } of lines) {
    deliveries[lineKey] = (await t.ctx.sequelize.transaction((tx) => deliverLine(tx, tenantOf(owner), session, lineKey))).deliveryId;
  }
  return { session, deliveries };
}

function expectNoLeaks(text: string, secrets: string[]) {
  for (const secret of secrets) expect({ leaked: secret, found: text.includes(secret) }).toEqual({ leaked: secret, found: false });
}

describe('GET /v1/storefront/public/order/:deliveryId', () => {
  it('answers a checkout’s download delivery to anyone holding the id: product, line, order, merchant, a link signed anew; no-store', async () => {
    const store = await newStore();
    const { session, deliveries } = await checkout(store.ws, [line(store.guide, '1', 1500, 2, 'Field Guide (PDF)'), line(store.dongle, '2', 4900)]);
    const before = Date.now();
    const res = await orderOf(deliveries['1']!);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const data = res.body.data;
    const download = data.download as Json;
    expect(data).toEqual({
      id: deliveries['1'],
      environment: 'test',
      kind: 'download',
      deliveredAt: expect.any(String),
      product: { id: store.guide.id, name: 'Field Guide (PDF)', variantName: null, thumbnail: THUMBNAIL },
      line: { quantity: 2, unitAmount: 1500, amount: 3000, currency: 'USD' },
      download: {
        url: expect.stringMatching(new RegExp(`^${t.ctx.config.PUBLIC_BASE_URL}/api/v1/storefront/public/downloads/`)),
        expiresAt: expect.any(String),
        fileName: 'field-guide.pdf',
        downloadCount: 0,
        downloadLimit: 5,
        limitReached: false,
      },
      license: null,
      shipment: null,
      order: {
        source: 'checkout',
        orderNumber: null,
        status: 'completed',
        fulfillmentStatus: null,
        subtotal: 7900,
        discount: null,
        amount: 7900,
        currency: 'USD',
        lineCount: 2,
        customerEmailMasked: 'b***@example.com',
        placedAt: session.createdAt.toISOString(),
        paidAt: expect.any(String),
        trackingCourier: null,
        trackingNumber: null,
      },
      merchant: { name: 'Acme Books', slug: store.ws.slug, brandColor: '#0f766e', brandLogo: LOGO },
    });
    // Signed for 7 days from this read, to the second.
    const expiresAt = new Date(download.expiresAt as string).getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(Math.floor((before + DOWNLOAD_LINK_TTL_MS) / 1000) * 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + DOWNLOAD_LINK_TTL_MS);

    // Nothing of the merchant's or the buyer's beyond what is shown, nor the other line's delivery.
    expectNoLeaks(res.text, [
      store.ws.accountId,
      'accountId',
      'metadata',
      'secret-campaign',
      session.id,
      BUYER_EMAIL,
      'buyer.person',
      'Budi Buyer',
      '+62 811',
      deliveries['2']!,
      'Dongle',
      'storageKey',
      'customerId',
      'checkoutSessionId',
    ]);
  });

  it('serves the file through the re-signed link (a real download, counted), and reading the page writes nothing', async () => {
    const store = await newStore();
    const { deliveries } = await checkout(store.ws, [line(store.guide, '1', 1500)]);
    const id = deliveries['1']!;
    const writes = await writesOf(store.ws.accountId);
    const first = await orderOf(id);
    await orderOf(id);
    expect(await writesOf(store.ws.accountId)).toEqual(writes);

    const url = (first.body.data.download as Json).url as string;
    const file = await fetch(`${t.api.baseUrl}${pathOf(url)}`);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer())).toEqual(store.guideContent);
    expect(file.headers.get('content-disposition')).toContain('field-guide.pdf');

    const after = (await orderOf(id)).body.data.download as Json;
    expect(after).toMatchObject({ downloadCount: 1, downloadLimit: 5, limitReached: false, fileName: 'field-guide.pdf' });
    // The new signing works as well.
    expect((await fetch(`${t.api.baseUrl}${pathOf(after.url as string)}`, { method: 'HEAD' })).status).toBe(200);
  });

  it('shows a spent download as such, and a deleted file as unavailable (no link)', async () => {
    const store = await newStore();
    const { deliveries } = await checkout(store.ws, [line(store.guide, '1', 1500), line(store.app, '2', 9900)]);
    await t.ctx.sequelize.query('UPDATE deliveries SET download_count = download_limit WHERE id = :id', { replacements: { id: deliveries['1'] } });
    expect((await orderOf(deliveries['1']!)).body.data.download).toMatchObject({ downloadCount: 5, downloadLimit: 5, limitReached: true, fileName: 'field-guide.pdf' });

    await t.ctx.sequelize.query('DELETE FROM product_files WHERE product_id = :productId', { replacements: { productId: store.app.id } });
    const gone = (await orderOf(deliveries['2']!)).body.data;
    expect(gone.download).toEqual({ url: null, expiresAt: null, fileName: null, downloadCount: 0, downloadLimit: 5, limitReached: false });
    // The licence the same delivery carries is still the buyer's.
    expect((gone.license as Json).key).toEqual(expect.any(String));
  });

  it('carries the licence key of a licensed download, with the licence’s status now', async () => {
    const store = await newStore();
    const { deliveries } = await checkout(store.ws, [line(store.app, '1', 9900)]);
    const data = (await orderOf(deliveries['1']!)).body.data;
    expect(data.kind).toBe('download');
    const [licence] = await t.ctx.sequelize.query<{ key: string }>('SELECT key FROM licenses WHERE account_id = :accountId', {
      type: QueryTypes.SELECT,
      replacements: { accountId: store.ws.accountId },
    });
    expect(data.license).toEqual({ key: licence!.key, status: 'active', expiresAt: null });
    expect((data.download as Json).fileName).toBe('route-planner.exe');

    const revoked = await http(t.api.baseUrl, 'DELETE', `/api/v1/storefront/licenses/${licence!.key}`, { key: store.ws.secretKey });
    expect(revoked.status).toBe(204);
    expect((await orderOf(deliveries['1']!)).body.data.license).toEqual({ key: licence!.key, status: 'revoked', expiresAt: null });
  });

  it('answers a confirmed manual order’s licence delivery with the order number, payment and fulfillment status and tracking', async () => {
    const store = await newStore();
    const order = await insertManualOrder(t.ctx.sequelize, store.ws, store.dongle.id, {
      lines: [
        orderLine(store.dongle.id, { lineKey: '1', productName: 'Dongle', productType: 'physical', licenseEnabled: true, variantName: 'Blue', quantity: 2, unitAmount: 4000, amount: 8000 }),
        orderLine(store.guide.id, { lineKey: '2', productName: 'Field Guide' }),
      ],
      customerEmail: 'Siti@Example.test',
      customerPhone: '+62 812 999',
      shippingAddress: { line1: 'Jl. Rahasia 7', city: 'Bandung' },
      paymentStatus: 'payment_confirmed',
      paymentConfirmedAt: new Date('2025-03-02T10:00:00Z'),
      fulfillmentStatus: 'shipped',
      shippedAt: new Date('2025-03-03T10:00:00Z'),
      trackingCourier: 'JNE',
      trackingNumber: 'JNE123456',
      merchantPaymentNote: 'private payment note',
      merchantShippingNote: 'private shipping note',
      metadata: { source: 'hidden-meta' },
    });
    const { deliveryId, licenseKey } = await t.ctx.sequelize.transaction((tx) =>
      deliverPurchasedLine(tx, tenantOf(store.ws), {
        checkoutSessionId: null,
        manualOrderId: order.id,
        lineKey: '1',
        productId: store.dongle.id,
        variantId: null,
        quantity: 2,
        customerId: null,
        customerEmail: order.customerEmail,
        metadata: order.metadata,
      }),
    );
    const res = await orderOf(deliveryId);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      kind: 'license',
      product: { id: store.dongle.id, name: 'Dongle', variantName: 'Blue', thumbnail: null },
      line: { quantity: 2, unitAmount: 4000, amount: 8000, currency: 'USD' },
      download: null,
      license: { key: licenseKey, status: 'active', expiresAt: null },
      shipment: null,
      order: {
        source: 'manual_order',
        orderNumber: order.orderNumber,
        status: 'payment_confirmed',
        fulfillmentStatus: 'shipped',
        amount: 10500,
        currency: 'USD',
        lineCount: 2,
        customerEmailMasked: 'S***@Example.test',
        placedAt: order.placedAt.toISOString(),
        paidAt: '2025-03-02T10:00:00.000Z',
        trackingCourier: 'JNE',
        trackingNumber: 'JNE123456',
      },
    });
    expectNoLeaks(res.text, [order.id, 'Siti@', '+62 812', 'Rahasia', 'Bandung', 'private payment note', 'private shipping note', 'hidden-meta', store.ws.accountId]);
  });

  it('names the shipment of a shipment delivery, and none for a delivery handed over by the merchant', async () => {
    const store = await newStore();
    const shipmentId = newId('shp');
    const shipped = await insertDelivery(t.ctx.sequelize, store.ws, store.dongle.id, { kind: 'shipment', shipmentId });
    const handed = await insertDelivery(t.ctx.sequelize, store.ws, store.dongle.id, { kind: 'manual' });
    expect((await orderOf(shipped.id)).body.data).toMatchObject({ kind: 'shipment', shipment: { id: shipmentId }, download: null, license: null });
    expect((await orderOf(handed.id)).body.data).toMatchObject({ kind: 'manual', shipment: null, download: null, license: null });
  });

  it('answers a live delivery to a keyless request too (the id is the credential, not the environment of a key)', async () => {
    const store = await newStore();
    const live = { accountId: store.ws.accountId, environment: 'live' as const };
    const product = await insertCartProduct(live, { name: 'Live Guide' });
    const { deliveries } = await checkout(live, [line(product, '1', 2500)]);
    expect((await orderOf(deliveries['1']!)).body.data).toMatchObject({ environment: 'live', kind: 'manual', product: { name: 'Live Guide' } });
  });

  it('answers unknown, malformed and other ids with 404 RESOURCE_NOT_FOUND (never cached), an over-long one with 400', async () => {
    const store = await newStore();
    const { session, deliveries } = await checkout(store.ws, [line(store.guide, '1', 1500)]);
    const order = await insertManualOrder(t.ctx.sequelize, store.ws, store.guide.id);
    const id = deliveries['1']!;
    const writes = await writesOf(store.ws.accountId);
    for (const probe of [
      newId('del'),
      id.toLowerCase(),
      id.replace('del_', 'DEL_'),
      `${id}0`,
      id.slice(0, -1),
      'del_',
      'del_x',
      session.id,
      order.id,
      store.guide.id,
      store.ws.accountId,
      'order',
      encodeURIComponent(`${id} `),
      encodeURIComponent('../downloads/x'),
    ]) {
      const res = await orderOf(probe);
      expect({ probe, status: res.status }).toEqual({ probe, status: 404 });
      expectError(res as unknown as HttpResult, 404, 'RESOURCE_NOT_FOUND');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    expectError((await orderOf(`del_${'A'.repeat(120)}`)) as unknown as HttpResult, 400, 'VALIDATION_ERROR');
    expect(await writesOf(store.ws.accountId)).toEqual(writes);
  });

  it('answers a delivery whose order line is not on record with 404 (it is no buyer’s order page)', async () => {
    const store = await newStore();
    const orphan = await insertDelivery(t.ctx.sequelize, store.ws, store.guide.id, { session: null });
    expectError((await orderOf(orphan.id)) as unknown as HttpResult, 404, 'RESOURCE_NOT_FOUND');
    const session: CheckoutSession = await insertCheckoutSessionRow(t.ctx.sequelize, store.ws, { status: 'completed', lineItems: [line(store.guide, '1', 1500)] });
    const otherLine = await insertDelivery(t.ctx.sequelize, store.ws, store.guide.id, { session, lineKey: '9' });
    expectError((await orderOf(otherLine.id)) as unknown as HttpResult, 404, 'RESOURCE_NOT_FOUND');
  });

  it('takes no key: an Authorization header, even a broken one or another workspace’s, changes nothing', async () => {
    const store = await newStore();
    const { deliveries } = await checkout(store.ws, [line(store.guide, '1', 1500)]);
    const plain = await orderOf(deliveries['1']!);
    const other = await t.ctx.createWorkspace();
    for (const key of [other.secretKey, other.publishableKey, 'sk_test_broken']) {
      const res = await http<Envelope>(t.api.baseUrl, 'GET', `${PUBLIC}/order/${deliveries['1']}`, { key });
      expect(res.status).toBe(200);
      expect({ ...res.body.data, download: null }).toEqual({ ...plain.body.data, download: null });
    }
  });
});

describe('route order, reserved slugs and custom domains', () => {
  it('refuses the storefront’s global segments as workspace slugs', async () => {
    for (const slug of GLOBAL_STOREFRONT_SEGMENTS) {
      await expect(t.ctx.createWorkspace({ slug })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('reserved') });
      expect(await Account.count({ where: { slug } })).toBe(0);
    }
  });

  it('keeps `order/<x>` the order page even for a store slugged `order` from before the reservation; its landing stays its own', async () => {
    const store = await newStore();
    const { deliveries } = await checkout(store.ws, [line(store.guide, '1', 1500)]);
    // Written directly: no workspace can be created with this slug any more.
    const legacy = await t.ctx.createWorkspace();
    await Account.update({ slug: 'order' }, { where: { id: legacy.accountId } });
    try {
      const product = await insertCartProduct({ accountId: legacy.accountId, environment: 'live' }, { name: 'Shadowed', slug: 'shadowed' });
      const landing = await http<Envelope>(t.api.baseUrl, 'GET', `${PUBLIC}/order`);
      expect(landing.status).toBe(200);
      expect((landing.body.data.merchant as Json).id).toBe(legacy.accountId);
      const shadowed = await http<Envelope>(t.api.baseUrl, 'GET', `${PUBLIC}/order/${product.slug}`);
      expectError(shadowed as unknown as HttpResult, 404, 'RESOURCE_NOT_FOUND');
      expect(shadowed.body.error!.message).toBe('Order not found');
      expect((await orderOf(deliveries['1']!)).body.data.id).toBe(deliveries['1']);
    } finally {
      await Account.update({ slug: null }, { where: { id: legacy.accountId } });
    }
  });

  it('is not rewritten on a custom domain: `order/<id>` there is the order page, not a product of the host’s store', async () => {
    const store = await newStore();
    const host = `${store.ws.slug}.shop.example.com`;
    const settings = await http(t.api.baseUrl, 'PATCH', '/api/v1/account/storefront', { key: store.ws.secretKey, body: { customDomains: [host] } });
    expect(settings.status).toBe(200);
    const { deliveries } = await checkout(store.ws, [line(store.guide, '1', 1500)]);
    const res = await rawGet(t.api.baseUrl, `${PUBLIC}/order/${deliveries['1']}`, { host });
    expect(res.status).toBe(200);
    expect((JSON.parse(res.text) as Envelope).data.id).toBe(deliveries['1']);
    const unknown = await rawGet(t.api.baseUrl, `${PUBLIC}/order/${newId('del')}`, { host });
    expect([unknown.status, (JSON.parse(unknown.text) as Envelope).error?.message]).toEqual([404, 'Order not found']);
  });
});

/** The text a person reads (tags dropped, entities decoded, whitespace collapsed). */
function textOf(html: string): string {
  let text = '';
  const parser = new Parser({ ontext: (chunk) => (text += chunk), onclosetag: () => (text += ' ') }, { decodeEntities: true });
  parser.write(html);
  parser.end();
  return text.replace(/\s+/g, ' ').trim();
}

function elementsOf(html: string): Array<{ name: string; attributes: Record<string, string> }> {
  const elements: Array<{ name: string; attributes: Record<string, string> }> = [];
  const parser = new Parser({ onopentag: (name, attributes) => elements.push({ name, attributes }) }, { decodeEntities: true });
  parser.write(html);
  parser.end();
  return elements;
}

describe('GET /order/:deliveryId (the HTML page)', () => {
  const page = async (p: string, init: RequestInit = {}) => {
    const res = await fetch(`${t.api.baseUrl}${p}`, init);
    return { status: res.status, headers: res.headers, html: await res.text() };
  };

  it('renders what the JSON answers, under the checkout pages’ strict CSP with the logo’s and thumbnail’s origins, never cached', async () => {
    const store = await newStore();
    const { deliveries } = await checkout(store.ws, [line(store.guide, '1', 1500, 2, 'Field Guide (PDF)'), line(store.app, '2', 9900)]);
    const res = await page(`/order/${deliveries['1']}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const csp = res.headers.get('content-security-policy')!;
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
    expect(csp).toBe(
      `default-src 'none';script-src 'none';style-src 'self' 'nonce-${nonce}';img-src 'self' https://cdn.acme.example https://images.acme.example;form-action 'self';base-uri 'none';frame-ancestors 'none'`,
    );
    const text = textOf(res.html);
    for (const part of ['Acme Books', 'Test mode', 'Your order', 'Field Guide (PDF)', '2 × $15.00 · $30.00', 'Paid', 'Order total $129.00 (2 items)', 'b***@example.com', 'Download field-guide.pdf', 'Downloads used: 0 of 5', deliveries['1']!]) {
      expect(text).toContain(part);
    }
    expectNoLeaks(res.html, [store.ws.accountId, BUYER_EMAIL, 'Route Planner', deliveries['2']!, 'secret-campaign']);
    const elements = elementsOf(res.html);
    expect(elements.filter((e) => e.name === 'script')).toEqual([]);
    expect(elements.filter((e) => Object.keys(e.attributes).some((a) => a === 'style' || a.startsWith('on')))).toEqual([]);
    const link = elements.find((e) => e.name === 'a' && e.attributes.class?.includes('download'))!;
    expect(pathOf(link.attributes.href!)).toMatch(/^\/api\/v1\/storefront\/public\/downloads\//);
    expect((await fetch(`${t.api.baseUrl}${pathOf(link.attributes.href!)}`)).status).toBe(200);
    expect(elements.find((e) => e.name === 'img' && e.attributes.class === 'thumbnail')?.attributes).toMatchObject({ src: THUMBNAIL, referrerpolicy: 'no-referrer' });

    // The shared stylesheet, under this mount.
    const stylesheet = elements.find((e) => e.name === 'link' && e.attributes.rel === 'stylesheet')!.attributes.href!;
    expect(stylesheet).toMatch(/^\/order\/assets\/pages\.[0-9a-f]{12}\.css$/);
    const css = await page(stylesheet);
    expect([css.status, css.headers.get('cache-control')]).toEqual([200, 'public, max-age=31536000, immutable']);
  });

  it('shows the order’s subtotal, its discount with the code, and the total, in the JSON and on the page', async () => {
    const store = await newStore();
    const coupon = await insertCoupon(store.ws, { code: 'SPRING10' });
    const { deliveries } = await checkout(store.ws, [line(store.guide, '1', 1500, 2), line(store.app, '2', 9900)], {
      discount: { id: coupon.id, code: 'SPRING10', amount: 1290 },
      amount: 11610,
    });
    expect((await orderOf(deliveries['1']!)).body.data.order).toMatchObject({ subtotal: 12900, discount: { code: 'SPRING10', amount: 1290 }, amount: 11610 });
    expect(textOf((await page(`/order/${deliveries['1']}`)).html)).toContain('Subtotal $129.00 Discount SPRING10 −$12.90 Order total $116.10 (2 items)');
  });

  it('escapes every merchant and line text, and drops a thumbnail that is not http(s)', async () => {
    const store = await newStore();
    await Account.update({ name: '<script>alert("name")</script>Evil & Co', brandColor: 'red}body{display:none' }, { where: { id: store.ws.accountId } });
    await store.guide.update({ thumbnail: 'javascript:alert(1)' });
    const { deliveries } = await checkout(store.ws, [line(store.guide, '1', 1500, 1, '<img src=x onerror=alert(1)>')]);
    const res = await page(`/order/${deliveries['1']}`);
    expect(res.status).toBe(200);
    expect(res.html).not.toContain('<script>alert');
    expect(res.html).not.toContain('<img src=x');
    expect(textOf(res.html)).toContain('<img src=x onerror=alert(1)>');
    expect(textOf(res.html)).toContain('<script>alert("name")</script>Evil & Co');
    expect(elementsOf(res.html).filter((e) => e.name === 'img' && e.attributes.class === 'thumbnail')).toEqual([]);
    expect(res.headers.get('content-security-policy')).toContain("img-src 'self' https://cdn.acme.example;");
    expect(elementsOf(res.html).filter((e) => e.name === 'style')).toEqual([]);
    expect(res.html).not.toContain('display:none');
    const data = (await orderOf(deliveries['1']!)).body.data;
    expect(data.product).toMatchObject({ thumbnail: null });
    expect(data.merchant).toMatchObject({ name: '<script>alert("name")</script>Evil & Co', brandColor: null, brandLogo: LOGO });
  });

  it('answers an unknown or malformed id with a 404 page, an undecodable one with 400, other methods with 405', async () => {
    for (const id of [newId('del'), 'nope', 'cs_01J00000000000000000000000']) {
      const res = await page(`/order/${id}`);
      expect([res.status, res.headers.get('content-type'), res.headers.get('cache-control')]).toEqual([404, 'text/html; charset=utf-8', 'no-store']);
      expect(textOf(res.html)).toContain('Order not found');
    }
    expect((await page('/order/%E0%A4%A')).status).toBe(400);
    const post = await page(`/order/${newId('del')}`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect((await page('/order/a/b')).status).toBe(404);
  });
});

describe('rate limit', () => {
  it('counts the JSON route and the page against the public per-IP limit; over it 429, still never cached', async () => {
    // An API of its own behind a trusted proxy, so this client address is this test's alone.
    const api = await t.ctx.startApi({ TRUST_PROXY: '1', PUBLIC_RATE_LIMIT_PER_MINUTE: '3', FILE_STORAGE_DIR: STORAGE });
    const store = await newStore();
    const { deliveries } = await checkout(store.ws, [line(store.guide, '1', 1500)]);
    const ip = (last: number) => `10.${Math.floor(Math.random() * 250)}.${process.pid % 250}.${last}`;
    const headers = { 'x-forwarded-for': ip(1) };
    const json = () => http<Envelope>(api.baseUrl, 'GET', `${PUBLIC}/order/${deliveries['1']}`, { headers });
    expect((await json()).status).toBe(200);
    expect((await json()).status).toBe(200);
    expect((await fetch(`${api.baseUrl}/order/${deliveries['1']}`, { headers })).status).toBe(200);
    const limited = await json();
    expectError(limited as unknown as HttpResult, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('cache-control')).toBe('no-store');
    const limitedPage = await fetch(`${api.baseUrl}/order/${deliveries['1']}`, { headers });
    expect([limitedPage.status, limitedPage.headers.get('content-type')]).toEqual([429, 'text/html; charset=utf-8']);
    expect((await http(api.baseUrl, 'GET', `${PUBLIC}/order/${deliveries['1']}`, { headers: { 'x-forwarded-for': ip(2) } })).status).toBe(200);
  });
});
