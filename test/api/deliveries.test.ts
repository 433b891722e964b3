import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import { DOWNLOAD_LINK_TTL_MS, DOWNLOAD_PATH, createDownloadLinks } from '../../domain/deliveries/links';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { requireEncryptionKey } from '../../lib/config';
import { createTokenSigner } from '../../lib/signed-token';
import { createStorage } from '../../lib/storage';
import { insertCheckoutSessionRow, lineOf } from '../fixtures/checkout';
import { insertDelivery, insertDownload, type DownloadFixture } from '../fixtures/deliveries';
import { insertProduct } from '../fixtures/products';
import { http, useTestApi, type HttpResult } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { rawGet } from '../helpers/storefront';

const STORAGE = mkdtempSync(path.join(tmpdir(), 'deliveries-'));
const t = useTestApi({ FILE_STORAGE_DIR: STORAGE });
// Its own API with a per-IP budget of 2, called from a loopback address no other test uses (see trust-proxy.test.ts).
const perIp = useTestApi({ FILE_STORAGE_DIR: STORAGE, PUBLIC_RATE_LIMIT_PER_MINUTE: '2' });
const SOURCE = `127.${Math.floor(Math.random() * 200) + 20}.${Math.floor(Math.random() * 250) + 1}.${(process.pid % 250) + 2}`;
afterAll(() => rm(STORAGE, { recursive: true, force: true }));

const storage = createStorage({ FILE_STORAGE_DIR: STORAGE });
const DELIVERIES = '/api/v1/storefront/deliveries';
const DAY_MS = 24 * 60 * 60 * 1000;

interface DeliveryDto {
  id: string;
  accountId: string;
  productId: string;
  customerId: string | null;
  checkoutSessionId: string | null;
  kind: string;
  downloadUrl: string | null;
  downloadExpiresAt: string | null;
  downloadCount: number | null;
  downloadLimit: number | null;
  licenseKey: string | null;
  shipmentId: string | null;
  deliveredAt: string;
  metadata: Record<string, unknown>;
}
type Data<T> = { data: T; error: { code: string; details?: { reason?: string } } | null; meta: { page?: unknown } };

const links = () => createDownloadLinks({ secret: requireEncryptionKey(t.ctx.config), publicBaseUrl: t.ctx.config.PUBLIC_BASE_URL });
const list = (key: string) => http<Data<DeliveryDto[]>>(t.api.baseUrl, 'GET', DELIVERIES, { key });
const retrieve = (id: string, key: string) => http<Data<DeliveryDto>>(t.api.baseUrl, 'GET', `${DELIVERIES}/${id}`, { key });

/** The path of a signed link (it names PUBLIC_BASE_URL; the test API listens elsewhere). */
const pathOf = (url: string) => new URL(url).pathname;
const tokenPath = (token: string) => `${DOWNLOAD_PATH}/${token}`;

/** A successful download's bytes (http() would decode them as text). */
async function download(urlPath: string, init: RequestInit = {}) {
  const res = await fetch(`${t.api.baseUrl}${urlPath}`, init);
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** A refused download, read as the JSON error envelope it is. */
const refusedDownload = (urlPath: string) => http<Data<null>>(t.api.baseUrl, 'GET', urlPath);

function expectRefusal(res: HttpResult<Data<null>>, status: number, code: string, reason?: string) {
  expectError(res as unknown as HttpResult, status, code);
  if (reason) expect(res.body.error?.details?.reason).toBe(reason);
}

/** The delivery row as stored, to prove a refusal wrote nothing. */
async function row(id: string): Promise<Record<string, unknown>> {
  const [found] = await t.ctx.sequelize.query<{ row: Record<string, unknown> }>('SELECT to_jsonb(d) AS row FROM deliveries d WHERE id = :id', {
    type: QueryTypes.SELECT,
    replacements: { id },
  });
  return found!.row;
}
const countOf = async (id: string) => (await row(id)).download_count;

let ws: CreatedWorkspace;

beforeAll(async () => {
  ws = await t.ctx.createWorkspace();
});

async function fixture(options: { content?: Buffer; fileName?: string; mimeType?: string | null; downloadLimit?: number | null } = {}): Promise<DownloadFixture> {
  return insertDownload(t.ctx.sequelize, storage, ws, { content: options.content ?? Buffer.from('%PDF-1.7 the book'), ...options });
}

describe('merchant reads (secret key)', () => {
  it('lists every delivery of the workspace and environment, newest first, as a plain array without pagination', async () => {
    const own = await t.ctx.createWorkspace();
    const productId = await insertProduct(t.ctx.sequelize, own);
    const session = await insertCheckoutSessionRow(t.ctx.sequelize, own, {
      status: 'completed',
      lineItems: [lineOf(productId, 1000, 1, '1'), lineOf(productId, 1000, 1, '2'), lineOf(productId, 1000, 1, '3')],
    });
    const first = await insertDelivery(t.ctx.sequelize, own, productId, { session, lineKey: '1' });
    const second = await insertDelivery(t.ctx.sequelize, own, productId, { session, lineKey: '2', kind: 'license', licenseKey: 'TEST-2222-3333-4444-5555' });
    const third = await insertDelivery(t.ctx.sequelize, own, productId, { session, lineKey: '3', kind: 'manual' });
    // Neither the workspace's live environment nor another workspace shows up.
    const liveProduct = await insertProduct(t.ctx.sequelize, { accountId: own.accountId, environment: 'live' });
    await insertDelivery(t.ctx.sequelize, { accountId: own.accountId, environment: 'live' }, liveProduct);
    await insertDelivery(t.ctx.sequelize, ws, await insertProduct(t.ctx.sequelize, ws));

    const res = await list(own.secretKey);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.data)).toBe(true);
    expect(res.body.data.map((d) => d.id)).toEqual([third.id, second.id, first.id]);
    expect(res.body.meta.page).toBeUndefined();
    expect(res.body.data.every((d) => d.accountId === own.accountId && d.checkoutSessionId === session.id)).toBe(true);

    const live = await list(own.liveSecretKey);
    expect(live.body.data.map((d) => d.productId)).toEqual([liveProduct]);
    expect((await list((await t.ctx.createWorkspace()).secretKey)).body.data).toEqual([]);
  });

  it('retrieves a download delivery in document 1’s shape, with a link signed for 7 days that downloads the file', async () => {
    const { delivery, productId } = await fixture({ downloadLimit: 5 });
    const before = Date.now();
    const res = await retrieve(delivery.id, ws.secretKey);
    expect(res.status).toBe(200);
    const dto = res.body.data;
    expect(dto).toEqual({
      id: delivery.id,
      accountId: ws.accountId,
      productId,
      customerId: null,
      checkoutSessionId: delivery.checkoutSessionId,
      kind: 'download',
      downloadUrl: expect.stringMatching(new RegExp(`^${t.ctx.config.PUBLIC_BASE_URL}${DOWNLOAD_PATH}/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`)),
      downloadExpiresAt: expect.any(String),
      downloadCount: 0,
      downloadLimit: 5,
      licenseKey: null,
      shipmentId: null,
      deliveredAt: delivery.deliveredAt.toISOString(),
      metadata: { orderRef: 'A-100' },
    });
    const expiresAt = Date.parse(dto.downloadExpiresAt!);
    expect(expiresAt).toBeGreaterThan(before + DOWNLOAD_LINK_TTL_MS - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + DOWNLOAD_LINK_TTL_MS);
    expect(DOWNLOAD_LINK_TTL_MS).toBe(7 * DAY_MS);
    expect((await download(pathOf(dto.downloadUrl!))).status).toBe(200);
  });

  it('has no link on the other kinds: a licence carries its key, a shipment its id', async () => {
    const productId = await insertProduct(t.ctx.sequelize, ws);
    const licence = await insertDelivery(t.ctx.sequelize, ws, productId, { kind: 'license', licenseKey: 'EBOOK-7K3M-Q9XD-4HNP-WA2T' });
    const shipment = await insertDelivery(t.ctx.sequelize, ws, productId, { kind: 'shipment', shipmentId: 'shp_01JD4X7V1QZ8N6Y3K2M5P9R0TS' });
    const l = (await retrieve(licence.id, ws.secretKey)).body.data;
    expect(l).toMatchObject({ kind: 'license', licenseKey: 'EBOOK-7K3M-Q9XD-4HNP-WA2T', downloadUrl: null, downloadExpiresAt: null, downloadCount: null, shipmentId: null });
    const s = (await retrieve(shipment.id, ws.secretKey)).body.data;
    expect(s).toMatchObject({ kind: 'shipment', shipmentId: 'shp_01JD4X7V1QZ8N6Y3K2M5P9R0TS', downloadUrl: null, downloadExpiresAt: null, licenseKey: null });
  });

  it('signs the link anew on every read: a later retrieve gives a new URL expiring later, and both work', async () => {
    const { delivery } = await fixture();
    const first = (await retrieve(delivery.id, ws.secretKey)).body.data;
    // Expiry is signed in whole seconds: a read in the next second signs a different link.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = (await retrieve(delivery.id, ws.secretKey)).body.data;
    expect(second.downloadUrl).not.toBe(first.downloadUrl);
    expect(Date.parse(second.downloadExpiresAt!)).toBeGreaterThan(Date.parse(first.downloadExpiresAt!));
    const listed = (await list(ws.secretKey)).body.data.find((d) => d.id === delivery.id)!;
    expect(Date.parse(listed.downloadExpiresAt!)).toBeGreaterThanOrEqual(Date.parse(second.downloadExpiresAt!));
    for (const url of [first.downloadUrl!, second.downloadUrl!, listed.downloadUrl!]) expect((await download(pathOf(url))).status).toBe(200);
  });

  it('answers 404 RESOURCE_NOT_FOUND for a missing id, another workspace’s delivery and the other environment’s', async () => {
    const { delivery } = await fixture();
    const other = await t.ctx.createWorkspace();
    expectError((await retrieve('del_01JD4X7V1QZ8N6Y3K2M5P9R0TS', ws.secretKey)) as unknown as HttpResult, 404, 'RESOURCE_NOT_FOUND');
    expectError((await retrieve(delivery.id, other.secretKey)) as unknown as HttpResult, 404, 'RESOURCE_NOT_FOUND');
    expectError((await retrieve(delivery.id, ws.liveSecretKey)) as unknown as HttpResult, 404, 'RESOURCE_NOT_FOUND');
  });

  it('needs a secret key: none is 401, a publishable key 403 FORBIDDEN', async () => {
    const { delivery } = await fixture();
    for (const target of [DELIVERIES, `${DELIVERIES}/${delivery.id}`]) {
      expectError(await http(t.api.baseUrl, 'GET', target), 401, 'AUTHENTICATION_REQUIRED');
      expectError(await http(t.api.baseUrl, 'GET', target, { key: ws.publishableKey }), 403, 'FORBIDDEN');
    }
  });
});

describe('downloads through the signed link (no key)', () => {
  it('streams the exact bytes as an attachment under the file’s name, with its type and length, and counts each download', async () => {
    const content = randomBytes(300_000);
    const { delivery } = await fixture({ content, fileName: 'Résumé "final" 2026.pdf', mimeType: 'application/pdf' });
    const url = pathOf((await retrieve(delivery.id, ws.secretKey)).body.data.downloadUrl!);

    const res = await download(url);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(content)).toBe(true);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-length')).toBe(String(content.length));
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="R?sum? \\"final\\" 2026.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22%202026.pdf`,
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await countOf(delivery.id)).toBe(1);

    expect((await download(url)).bytes.equals(content)).toBe(true);
    expect(await countOf(delivery.id)).toBe(2);
    expect((await retrieve(delivery.id, ws.secretKey)).body.data.downloadCount).toBe(2);
  });

  it('falls back to the type of the name’s extension when the file has no usable type', async () => {
    for (const [mimeType, fileName, expected] of [
      [null, 'notes.pdf', 'application/pdf'],
      ['not a type', 'archive.zip', 'application/zip'],
      [null, 'data', 'application/octet-stream'],
    ] as const) {
      const { delivery } = await fixture({ fileName, mimeType });
      const res = await download(pathOf((await retrieve(delivery.id, ws.secretKey)).body.data.downloadUrl!));
      expect([fileName, res.status, res.headers.get('content-type')]).toEqual([fileName, 200, expected]);
    }
  });

  it('answers HEAD with the headers and counts nothing', async () => {
    const content = Buffer.from('twelve bytes');
    const { delivery } = await fixture({ content, downloadLimit: 1 });
    const url = pathOf((await retrieve(delivery.id, ws.secretKey)).body.data.downloadUrl!);
    const res = await download(url, { method: 'HEAD' });
    expect([res.status, res.headers.get('content-length'), res.bytes.length]).toEqual([200, '12', 0]);
    expect(await countOf(delivery.id)).toBe(0);
    expect((await download(url)).bytes.equals(content)).toBe(true);
  });

  it('refuses a download past downloadLimit with 403 FORBIDDEN, counting nothing', async () => {
    const { delivery } = await fixture({ downloadLimit: 2 });
    const url = pathOf((await retrieve(delivery.id, ws.secretKey)).body.data.downloadUrl!);
    expect((await download(url)).status).toBe(200);
    expect((await download(url)).status).toBe(200);
    const before = await row(delivery.id);
    expectRefusal(await refusedDownload(url), 403, 'FORBIDDEN', 'download_limit_reached');
    // A link signed later is the same delivery: still refused.
    expectRefusal(await refusedDownload(pathOf(links().sign(delivery.id).url)), 403, 'FORBIDDEN', 'download_limit_reached');
    expect(await row(delivery.id)).toEqual(before);
    expect(before.download_count).toBe(2);
  });

  it('holds the limit under concurrent downloads: exactly downloadLimit of them are served', async () => {
    const content = randomBytes(50_000);
    const { delivery } = await fixture({ content, downloadLimit: 3 });
    const url = pathOf((await retrieve(delivery.id, ws.secretKey)).body.data.downloadUrl!);
    const results = await Promise.all(Array.from({ length: 10 }, () => download(url)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 403, 403, 403, 403, 403, 403, 403]);
    expect(results.filter((r) => r.status === 200).every((r) => r.bytes.equals(content))).toBe(true);
    expect(await countOf(delivery.id)).toBe(3);
  });

  it('honours no limit when downloadLimit is null', async () => {
    const { delivery } = await fixture({ downloadLimit: null });
    const url = pathOf((await retrieve(delivery.id, ws.secretKey)).body.data.downloadUrl!);
    for (let i = 0; i < 6; i += 1) expect((await download(url)).status).toBe(200);
    expect(await countOf(delivery.id)).toBe(6);
  });

  it('refuses a tampered, malformed, foreign-key or other-purpose token with 403 FORBIDDEN, counting nothing', async () => {
    const { delivery } = await fixture();
    const { delivery: other } = await fixture();
    const token = pathOf(links().sign(delivery.id).url).split('/').pop()!;
    const [body, signature] = token.split('.') as [string, string];
    const otherBody = pathOf(links().sign(other.id).url).split('/').pop()!.split('.')[0]!;
    const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    const forged = createDownloadLinks({ secret: randomBytes(32), publicBaseUrl: t.ctx.config.PUBLIC_BASE_URL }).sign(delivery.id).url;
    const otherPurpose = createTokenSigner(requireEncryptionKey(t.ctx.config), 'abandoned-cart-unsubscribe').sign({ d: delivery.id, e: Math.floor(Date.now() / 1000) + 3600 });
    const before = [await row(delivery.id), await row(other.id)];
    for (const bad of [`${body}.${flipped}`, `${otherBody}.${signature}`, body, `${token}.x`, 'not-a-token', `${body}.`, pathOf(forged).split('/').pop()!, otherPurpose]) {
      const res = await refusedDownload(tokenPath(encodeURIComponent(bad)));
      expect([bad, res.status, res.body.error?.code, res.body.error?.details?.reason]).toEqual([bad, 403, 'FORBIDDEN', 'invalid_signature']);
    }
    expect([await row(delivery.id), await row(other.id)]).toEqual(before);
    expect((await download(tokenPath(token))).status).toBe(200);
  });

  it('refuses an expired signature with 403 FORBIDDEN, counting nothing; one just inside its 7 days works', async () => {
    const { delivery } = await fixture();
    const before = await row(delivery.id);
    const expired = links().sign(delivery.id, Date.now() - DOWNLOAD_LINK_TTL_MS - 2000);
    expect(expired.expiresAt.getTime()).toBeLessThan(Date.now());
    expectRefusal(await refusedDownload(pathOf(expired.url)), 403, 'FORBIDDEN', 'expired');
    expect(await row(delivery.id)).toEqual(before);
    const old = links().sign(delivery.id, Date.now() - DOWNLOAD_LINK_TTL_MS + 60_000);
    expect((await download(pathOf(old.url))).status).toBe(200);
  });

  it('answers 404 RESOURCE_NOT_FOUND once the file was deleted (its row gone, its blob not yet), counting nothing', async () => {
    const { delivery, productId, fileId, storageKey } = await fixture();
    const url = pathOf((await retrieve(delivery.id, ws.secretKey)).body.data.downloadUrl!);
    expect((await download(url)).status).toBe(200);
    const deleted = await http(t.api.baseUrl, 'DELETE', `/api/v1/storefront/products/${productId}/files/${fileId}`, { key: ws.secretKey });
    expect(deleted.status).toBe(204);
    // The blob outlives the row by FILE_CLEANUP_DELAY; the download is refused already.
    const blob = await storage.open(storageKey);
    blob?.body.destroy();
    expect(blob).not.toBeNull();
    const before = await row(delivery.id);
    expectRefusal(await refusedDownload(url), 404, 'RESOURCE_NOT_FOUND');
    expect(await row(delivery.id)).toEqual(before);
    expect(before.download_count).toBe(1);
  });

  it('answers 404 RESOURCE_NOT_FOUND when the blob is gone though the row is not, counting nothing', async () => {
    const { delivery, storageKey } = await fixture();
    await storage.remove(storageKey);
    const before = await row(delivery.id);
    expectRefusal(await refusedDownload(pathOf((await retrieve(delivery.id, ws.secretKey)).body.data.downloadUrl!)), 404, 'RESOURCE_NOT_FOUND');
    expect(await row(delivery.id)).toEqual(before);
  });

  it('answers 404 RESOURCE_NOT_FOUND to a valid signature naming no download delivery', async () => {
    const licence = await insertDelivery(t.ctx.sequelize, ws, await insertProduct(t.ctx.sequelize, ws), { kind: 'license' });
    for (const id of ['del_01JD4X7V1QZ8N6Y3K2M5P9R0TS', licence.id]) {
      expectRefusal(await refusedDownload(pathOf(links().sign(id).url)), 404, 'RESOURCE_NOT_FOUND');
    }
  });

  it('counts a download once it starts streaming, also when the client goes away midway', async () => {
    const content = randomBytes(8_000_000);
    const { delivery } = await fixture({ content });
    const url = pathOf((await retrieve(delivery.id, ws.secretKey)).body.data.downloadUrl!);
    const controller = new AbortController();
    const res = await fetch(`${t.api.baseUrl}${url}`, { signal: controller.signal });
    const reader = res.body!.getReader();
    const firstChunk = await reader.read();
    expect(firstChunk.value!.length).toBeLessThan(content.length);
    controller.abort();
    await reader.read().catch(() => undefined);
    expect(await countOf(delivery.id)).toBe(1);
    expect((await download(url)).bytes.equals(content)).toBe(true);
    expect(await countOf(delivery.id)).toBe(2);
  });

  // The path sits under the storefront's `/:merchantSlug/:productSlug`: every download above proves it is routed first.
  it('is served on a merchant’s custom domain too, without the slug rewrite', async () => {
    const host = `${ws.slug}.files.example.com`;
    const settings = await http(t.api.baseUrl, 'PATCH', '/api/v1/account/storefront', { key: ws.secretKey, body: { customDomains: [host] } });
    expect(settings.status).toBe(200);
    const content = Buffer.from('custom domain bytes');
    const { delivery } = await fixture({ content });
    const url = pathOf((await retrieve(delivery.id, ws.secretKey)).body.data.downloadUrl!);
    for (const headers of [{}, { host }] as Record<string, string>[]) {
      const res = await rawGet(t.api.baseUrl, url, headers);
      expect([headers, res.status, res.text]).toEqual([headers, 200, content.toString()]);
    }
  });

  it('is rate limited per client IP like the other public reads', async () => {
    const { delivery } = await fixture();
    const url = pathOf((await retrieve(delivery.id, ws.secretKey)).body.data.downloadUrl!);
    const from = (source: string) =>
      new Promise<number>((resolve, reject) => {
        const base = new URL(perIp.api.baseUrl);
        const req = request({ host: base.hostname, port: base.port, localAddress: source, path: url }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject);
        req.end();
      });
    expect([await from(SOURCE), await from(SOURCE), await from(SOURCE)]).toEqual([200, 200, 429]);
    // The refused request counted nothing.
    expect(await countOf(delivery.id)).toBe(2);
  });
});
