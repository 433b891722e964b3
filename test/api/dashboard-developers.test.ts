import { mkdtempSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Account, CustomDomain, Product, ProductFile, WebhookDeliveryAttempt, WebhookEndpoint } from '../../db/models';
import { loadConfig } from '../../lib/config';
import { createWebhookAgent } from '../../lib/webhooks/send';
import { insertProduct } from '../fixtures/products';
import { insertDeliveryAttempt, insertWebhookEndpoint } from '../fixtures/webhooks';
import { useTestApi } from '../helpers/context';
import { createDashboardUser, csrfOf, DashboardClient, type PageResult } from '../helpers/dashboard';
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver';
import { multipartBody, type Part } from '../helpers/multipart';
import { waitFor } from '../helpers/wait';
import { startTestWorker, type RunningWorker } from '../helpers/worker';

jest.setTimeout(120_000);

const STORAGE = mkdtempSync(path.join(tmpdir(), 'dashboard-developers-'));
const TASK_QUEUE = `dashboard-developers-${process.pid}`;
// An hour between delivery attempts: only a retry-now makes the second one within the test.
const ENV = { DASHBOARD_SIGNIN_LIMIT_PER_MINUTE: '100000', TEMPORAL_TASK_QUEUE: TASK_QUEUE, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '1h,1h', FILE_STORAGE_DIR: STORAGE };
const t = useTestApi(ENV);

let receiver: HttpsReceiver;
let worker: RunningWorker;
let agent: ReturnType<typeof createWebhookAgent>;
/** Paths the receiver answers 503 for, until a test mends them. */
const dead = new Set<string>();

beforeAll(async () => {
  const certs = await createTestCertificates();
  receiver = await startHttpsReceiver(certs);
  receiver.respond((req) => (dead.has(req.path) ? 503 : 200));
  agent = createWebhookAgent({ ca: certs.caCert });
  worker = await startTestWorker(t.ctx.sequelize, TASK_QUEUE, { webhookAgent: agent, config: loadConfig({ ...process.env, ...ENV }) });
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  agent?.destroy();
  await rm(STORAGE, { recursive: true, force: true });
});

async function signedIn() {
  const ws = await t.ctx.createWorkspace();
  const user = await createDashboardUser(t.ctx.sequelize, ws.accountId);
  const client = new DashboardClient(t.api.baseUrl);
  expect((await client.signIn(user.email, user.password)).status).toBe(303);
  return { ws, user, client };
}

/** Every file under the storage root (temporary ones included). */
async function filesOnDisk(): Promise<string[]> {
  const entries = await readdir(STORAGE, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.relative(STORAGE, path.join(e.parentPath, e.name))).sort();
}

/** A multipart form post as the browser sends the upload form: its fields in order, the session's cookies. */
async function postForm(client: DashboardClient, pathname: string, parts: Part[], headers: Record<string, string> = { 'sec-fetch-site': 'same-origin' }): Promise<PageResult> {
  const { body, contentType } = multipartBody(parts);
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const response = await fetch(`${t.api.baseUrl}${pathname}`, { method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': contentType, ...headers }, body });
  return { status: response.status, headers: response.headers, text: await response.text(), location: response.headers.get('location') };
}

const fieldError = (html: string, id: string) => new RegExp(`id="${id}-error">([^<]*)<`).exec(html)?.[1];

describe('dashboard products: create, edit, upload', () => {
  it('creates a product from the form, shows refusals beside their fields and writes nothing for them', async () => {
    const { ws, client } = await signedIn();
    const form = await client.get('/dashboard/products/new');
    expect(form.status).toBe(200);
    for (const [id, label] of [['product-name', 'Name'], ['product-type', 'Type'], ['product-price', 'Price (whole units)'], ['product-currency', 'Currency']]) {
      expect(form.text).toContain(`<label for="${id}">${label}</label>`);
    }

    const refused = await client.post('/dashboard/products', { name: '', type: 'physical', price: '12.50', currency: 'USD', weight: '', description: '' }, '/dashboard/products/new');
    expect(refused.status).toBe(400);
    expect(fieldError(refused.text, 'product-name')).toBeTruthy();
    expect(fieldError(refused.text, 'product-price')).toBe('Type a whole number of the currency’s units, such as 25');
    expect(fieldError(refused.text, 'product-weight')).toBe('weight (grams) is required for physical products');
    expect(refused.text).toContain('id="product-price" name="price" inputmode="numeric" required value="12.50" aria-invalid="true" aria-describedby="product-price-error"');
    expect(await Product.count({ where: { accountId: ws.accountId } })).toBe(0);

    const created = await client.post('/dashboard/products', { name: 'Field <guide>', type: 'digital', price: '25', currency: 'USD', description: 'Birds of Java', published: 'on' }, '/dashboard/products/new');
    expect(created.status).toBe(303);
    const id = /^\/dashboard\/products\/(prod_\w+)\?notice=product-created$/.exec(created.location!)![1]!;
    const row = (await Product.findByPk(id))!;
    expect(row.get()).toMatchObject({ accountId: ws.accountId, environment: 'test', name: 'Field <guide>', price: 25, currency: 'USD', type: 'digital', published: true, description: 'Birds of Java' });
    const page = await client.get(created.location!);
    expect(page.text).toContain('Product created.');
    expect(page.text).toContain('Field &lt;guide&gt;');
    expect(page.text).not.toContain('Field <guide>');
    expect(page.text).toContain(`POST ${t.ctx.config.PUBLIC_BASE_URL}/api/v1/storefront/public/${ws.slug}/${row.slug}/checkout`);
    // Whole units, shown as money: 25 USD is $25.00 (never $0.25).
    const list = await client.get('/dashboard/products');
    expect(list.text).toContain('<td class="num">$25.00</td>');
  });

  it('edits a product through the products service, with a refused price beside its field', async () => {
    const { ws, client } = await signedIn();
    const id = await insertProduct(t.ctx.sequelize, ws);
    const from = `/dashboard/products/${id}`;
    const bad = await client.post(from, { name: 'Renamed', price: 'ten', description: '' }, from);
    expect(bad.status).toBe(400);
    expect(fieldError(bad.text, 'product-price')).toBe('Type a whole number of the currency’s units, such as 25');
    expect((await Product.findByPk(id))!.name).not.toBe('Renamed');
    const saved = await client.post(from, { name: 'Renamed', price: '40', description: 'New words', published: 'on' }, from);
    expect(saved).toMatchObject({ status: 303, location: `${from}?notice=product-saved` });
    expect((await Product.findByPk(id))!.get()).toMatchObject({ name: 'Renamed', price: 40, description: 'New words', published: true });
    const unpublished = await client.post(from, { name: 'Renamed', price: '40', description: '' }, from);
    expect(unpublished.status).toBe(303);
    expect((await Product.findByPk(id))!.get()).toMatchObject({ published: false, description: null });
  });

  it('uploads a file with the multipart form: its CSRF token comes first, and without it nothing is stored', async () => {
    const { ws, client } = await signedIn();
    const id = await insertProduct(t.ctx.sequelize, ws);
    await Product.update({ type: 'digital' }, { where: { id } });
    const from = `/dashboard/products/${id}`;
    const page = await client.get(from);
    expect(page.text).toContain(`<form method="post" action="/dashboard/products/${id}/files" enctype="multipart/form-data">`);
    expect(page.text).toMatch(/<label for="product-file">Upload a file<\/label>\s*<input id="product-file" name="file" type="file" required>/);
    const token = csrfOf(page.text);
    const file: Part = { name: 'file', filename: 'guide.pdf', contentType: 'application/pdf', data: '%PDF-1.7 a small guide\n'.repeat(100) };
    const before = await filesOnDisk();

    // No token, another session's token, the token after the file, or a cross-site post: 403 and nothing stored.
    const other = await signedIn();
    const otherToken = csrfOf((await other.client.get('/dashboard')).text);
    const refusals = [
      await postForm(client, `${from}/files`, [file]),
      await postForm(client, `${from}/files`, [{ name: '_csrf', data: otherToken }, file]),
      await postForm(client, `${from}/files`, [file, { name: '_csrf', data: token }]),
      await postForm(client, `${from}/files`, [{ name: '_csrf', data: token }, file], { 'sec-fetch-site': 'cross-site' }),
      await postForm(client, `${from}/files`, [{ name: '_csrf', data: '' }]),
    ];
    expect(refusals.map((r) => r.status)).toEqual([403, 403, 403, 403, 403]);
    expect(refusals[0]!.text).toContain('Form refused');
    expect(await ProductFile.count({ where: { productId: id } })).toBe(0);
    expect(await filesOnDisk()).toEqual(before);

    // An empty file is refused beside the field.
    const empty = await postForm(client, `${from}/files`, [{ name: '_csrf', data: token }, { ...file, data: '' }]);
    expect(empty.status).toBe(400);
    expect(fieldError(empty.text, 'product-file')).toBe('The file is empty');
    expect(await filesOnDisk()).toEqual(before);

    const uploaded = await postForm(client, `${from}/files`, [{ name: '_csrf', data: token }, file]);
    expect(uploaded).toMatchObject({ status: 303, location: `${from}?notice=file-uploaded` });
    const rows = await ProductFile.findAll({ where: { productId: id } });
    expect(rows.map((r) => r.get())).toEqual([expect.objectContaining({ accountId: ws.accountId, fileName: 'guide.pdf', fileSize: 2300, mimeType: 'application/pdf', source: 'upload' })]);
    expect(await filesOnDisk()).toEqual([...before, rows[0]!.storageKey].sort());
    const shown = await client.get(uploaded.location!);
    expect(shown.text).toContain('File uploaded.');
    expect(shown.text).toMatch(/<span class="mono">guide\.pdf<\/span> <span class="small">2\.3 kB · application\/pdf/);
  });

  it('another workspace’s product is 404 for its page, edit and upload, and stays unchanged', async () => {
    const { client } = await signedIn();
    const other = await t.ctx.createWorkspace();
    const theirs = await insertProduct(t.ctx.sequelize, other);
    const before = (await Product.findByPk(theirs))!.get();
    const token = csrfOf((await client.get('/dashboard')).text);
    const page = await client.get(`/dashboard/products/${theirs}`);
    const edit = await client.request('POST', `/dashboard/products/${theirs}`, { _csrf: token, name: 'Taken', price: '1', description: '' });
    const upload = await postForm(client, `/dashboard/products/${theirs}/files`, [{ name: '_csrf', data: token }, { name: 'file', filename: 'x.txt', data: 'x' }]);
    expect([page.status, edit.status, upload.status]).toEqual([404, 404, 404]);
    for (const res of [page, edit, upload]) expect(res.text).toContain('belongs to another workspace');
    expect((await Product.findByPk(theirs))!.get()).toEqual(before);
    expect(await ProductFile.count({ where: { productId: theirs } })).toBe(0);
  });

  it('refuses the create and edit forms without the CSRF token and writes nothing', async () => {
    const { ws, client } = await signedIn();
    const id = await insertProduct(t.ctx.sequelize, ws);
    const before = (await Product.findByPk(id))!.get();
    const create = await client.request('POST', '/dashboard/products', { name: 'Sneaky', type: 'digital', price: '5', currency: 'USD' });
    const edit = await client.request('POST', `/dashboard/products/${id}`, { name: 'Sneaky', price: '5', description: '' });
    expect([create.status, edit.status]).toEqual([403, 403]);
    expect(await Product.count({ where: { accountId: ws.accountId } })).toBe(1);
    expect((await Product.findByPk(id))!.get()).toEqual(before);
  });
});

describe('dashboard webhook endpoints', () => {
  it('creates an endpoint with its secret shown once, and refuses a bad URL beside its field', async () => {
    const { ws, client } = await signedIn();
    const form = await client.get('/dashboard/developers/webhooks/new');
    expect(form.text).toContain('<label for="webhook-url">URL</label>');
    expect(form.text).toContain('<label for="webhook-events">Events (none selected: every event)</label>');
    const bad = await client.post('/dashboard/developers/webhooks', { url: 'http://plain.example/hooks', description: '' }, '/dashboard/developers/webhooks/new');
    expect(bad.status).toBe(400);
    expect(fieldError(bad.text, 'webhook-url')).toBe('must be an absolute https:// URL (plain HTTP is not accepted)');
    expect(await WebhookEndpoint.count({ where: { accountId: ws.accountId } })).toBe(0);

    const created = await client.post('/dashboard/developers/webhooks', { url: receiver.url('/created'), description: 'Shop sync', events: 'checkout.completed' }, '/dashboard/developers/webhooks/new');
    expect(created.status).toBe(201);
    const secret = /id="new-webhook-secret">(whsec_[\w-]+)</.exec(created.text)![1]!;
    const row = (await WebhookEndpoint.findOne({ where: { accountId: ws.accountId } }))!;
    expect(row.get()).toMatchObject({ url: receiver.url('/created'), description: 'Shop sync', events: ['checkout.completed'], active: true, environment: 'test' });
    expect(row.secretSealed).not.toContain(secret);
    const again = await client.get(`/dashboard/developers/webhooks/${row.id}`);
    expect(again.status).toBe(200);
    expect(again.text).not.toContain(secret);
    expect(again.text).not.toContain('new-webhook-secret');
    expect((await client.get('/dashboard/developers/webhooks')).text).toContain(`href="/dashboard/developers/webhooks/${row.id}"`);
  });

  it('shows the delivery log; a test event failing at the endpoint is retried now through the retry service and delivered', async () => {
    const { ws, client } = await signedIn();
    const pathname = `/dead-${ws.accountId}`;
    dead.add(pathname);
    const { row } = await insertWebhookEndpoint(ws, { url: receiver.url(pathname) });
    const from = `/dashboard/developers/webhooks/${row.id}`;
    expect((await client.get(from)).text).toContain('No delivery attempts yet.');

    const sent = await client.post(`/dashboard/developers/webhooks/${row.id}/test`, {}, from);
    expect(sent.status).toBe(303);
    const first = await waitFor(async () => (await WebhookDeliveryAttempt.findAll({ where: { endpointId: row.id } }))[0], { timeoutMs: 30_000 });
    expect(first.status).toBe('retry_scheduled');
    expect(first.eventId).toMatch(/^evt_test_/);
    const log = await client.get(from);
    expect(log.text).toContain(first.eventId);
    expect(log.text).toContain('retry scheduled');
    expect(log.text).toContain('HTTP 503');
    expect(log.text).toContain(`action="${from}/deliveries/${first.eventId}/retry"`);

    dead.delete(pathname);
    const retried = await client.post(`${from}/deliveries/${first.eventId}/retry`, {}, from);
    expect(retried).toMatchObject({ status: 303, location: `${from}?notice=retry-delivered` });
    const after = await client.get(retried.location!);
    expect(after.text).toContain('Retried now: the endpoint accepted the event.');
    expect(after.text).toContain('<span class="badge good">delivered</span>');
    expect(after.text).not.toContain('/retry"');
    expect(receiver.received.filter((r) => r.path === pathname).map((r) => r.status)).toEqual([503, 200]);

    // Over now: a second retry is refused with the service's reason.
    const over = await client.post(`${from}/deliveries/${first.eventId}/retry`, {}, from);
    expect(over.status).toBe(409);
    expect(over.text).toContain('there is no attempt left to retry');
  });

  it('refuses without the CSRF token; another workspace’s endpoint and its deliveries are 404 and unchanged', async () => {
    const { ws, client } = await signedIn();
    const noToken = await client.request('POST', '/dashboard/developers/webhooks', { url: receiver.url('/sneaky') });
    expect(noToken.status).toBe(403);
    expect(await WebhookEndpoint.count({ where: { accountId: ws.accountId } })).toBe(0);

    const other = await t.ctx.createWorkspace();
    const { row: theirs } = await insertWebhookEndpoint(other);
    const attempt = await insertDeliveryAttempt({ ...other, id: theirs.id, url: theirs.url }, { status: 'retry_scheduled', nextAttemptAt: new Date(Date.now() + 3_600_000) });
    const { row: mine } = await insertWebhookEndpoint(ws);
    const token = csrfOf((await client.get('/dashboard')).text);
    const page = await client.get(`/dashboard/developers/webhooks/${theirs.id}`);
    const retry = await client.request('POST', `/dashboard/developers/webhooks/${theirs.id}/deliveries/${attempt.eventId}/retry`, { _csrf: token });
    // Their event through my endpoint: no delivery of mine, 404 too.
    const crossed = await client.request('POST', `/dashboard/developers/webhooks/${mine.id}/deliveries/${attempt.eventId}/retry`, { _csrf: token });
    const noTokenRetry = await client.request('POST', `/dashboard/developers/webhooks/${mine.id}/deliveries/${attempt.eventId}/retry`, {});
    expect([page.status, retry.status, crossed.status, noTokenRetry.status]).toEqual([404, 404, 404, 403]);
    expect(page.text).toContain('belongs to another workspace');
    expect(await WebhookDeliveryAttempt.count({ where: { endpointId: theirs.id } })).toBe(1);
    expect((await WebhookEndpoint.findByPk(theirs.id))!.updatedAt).toEqual(theirs.updatedAt);
  });
});

describe('dashboard modules and storefront settings', () => {
  it('switches the fulfillment and payment modules through the modules service; refuses without the token', async () => {
    const { ws, client } = await signedIn();
    const page = await client.get('/dashboard/developers/modules');
    expect(page.text).toContain('Switch Fulfillment on');
    const flags = async () => (await Account.findByPk(ws.accountId))!.get();
    const before = await flags();

    const refused = await client.request('POST', '/dashboard/developers/modules', { module: 'fulfillment', enabled: 'true' });
    expect(refused.status).toBe(403);
    expect((await flags()).fulfillmentEnabled).toBe(before.fulfillmentEnabled);

    const on = await client.post('/dashboard/developers/modules', { module: 'fulfillment', enabled: 'true' }, '/dashboard/developers/modules');
    expect(on).toMatchObject({ status: 303, location: '/dashboard/developers/modules?notice=module-on' });
    expect((await flags()).fulfillmentEnabled).toBe(true);
    expect((await client.get(on.location!)).text).toContain('Switch Fulfillment off');
    const payment = await client.post('/dashboard/developers/modules', { module: 'payment', enabled: String(!before.paymentEnabled) }, '/dashboard/developers/modules');
    expect(payment.status).toBe(303);
    expect((await flags()).paymentEnabled).toBe(!before.paymentEnabled);
    // A module the service does not have is the route's schema's refusal.
    expect((await client.post('/dashboard/developers/modules', { module: 'nonsense', enabled: 'true' }, '/dashboard/developers/modules')).status).toBe(400);
  });

  it('saves storefront settings through the settings service, errors beside their fields, a taken host refused', async () => {
    const { ws, client } = await signedIn();
    const other = await t.ctx.createWorkspace();
    await CustomDomain.create({ hostname: `taken-${other.accountId.slice(4).toLowerCase()}.example.com`, accountId: other.accountId });
    const from = '/dashboard/settings/storefront';
    const page = await client.get(from);
    expect(page.text).toContain('<label for="storefront-name">Store name</label>');
    expect(page.text).toContain('<label for="storefront-manualPayment-qris-imageUrl">QRIS image URL</label>');
    const before = (await Account.findByPk(ws.accountId))!.get();

    const fields = { name: 'Toko Buku', description: 'Books', brandColor: '#0f766e', brandLogo: '', brandBanner: '', metaPixelId: '', googleTagId: 'G-ABC123', tiktokPixelId: '', customDomains: `shop-${ws.accountId.slice(4).toLowerCase()}.example.com`, 'manualPayment-bankName': 'Bank Central', 'manualPayment-accountNumber': '123', 'manualPayment-accountHolder': 'Toko', 'manualPayment-instructions': 'Put the reference in the note.', 'manualPayment-qris-imageUrl': '', 'manualPayment-qris-instructions': '', 'manualPayment-ewallet-instructions': '', 'manualPayment-intlWallet-instructions': 'x'.repeat(2000) };
    const refused = await client.post(from, { ...fields, brandColor: 'teal', 'manualPayment-qris-imageUrl': 'ftp://x' }, from);
    expect(refused.status).toBe(400);
    expect(fieldError(refused.text, 'storefront-brandColor')).toBe('must be a colour as #rrggbb');
    expect(fieldError(refused.text, 'storefront-manualPayment-qris-imageUrl')).toBeTruthy();
    expect((await Account.findByPk(ws.accountId))!.get()).toEqual(before);

    const taken = await client.post(from, { ...fields, customDomains: `taken-${other.accountId.slice(4).toLowerCase()}.example.com` }, from);
    expect(taken.status).toBe(409);
    expect(fieldError(taken.text, 'storefront-customDomains')).toContain('already serves another storefront');
    expect(await CustomDomain.count({ where: { accountId: ws.accountId } })).toBe(0);

    const noToken = await client.request('POST', from, fields);
    expect(noToken.status).toBe(403);

    const saved = await client.post(from, fields, from);
    expect(saved).toMatchObject({ status: 303, location: `${from}?notice=storefront-saved` });
    expect((await Account.findByPk(ws.accountId))!.get()).toMatchObject({ name: 'Toko Buku', brandColor: '#0f766e', googleTagId: 'G-ABC123', manualBankName: 'Bank Central', manualIntlWalletInstructions: 'x'.repeat(2000), metaPixelId: null });
    expect((await CustomDomain.findAll({ where: { accountId: ws.accountId } })).map((d) => d.hostname)).toEqual([`shop-${ws.accountId.slice(4).toLowerCase()}.example.com`]);
    expect((await client.get(from)).text).toContain('value="G-ABC123"');
  });
});
