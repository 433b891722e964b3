import { mkdtempSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { Event, Product, ProductFile } from '../../db/models';
import { newId } from '../../lib/ids';
import { PLAN_LIMITS } from '../../lib/plan-limits';
import { ACCOUNT_ID } from '../../workflows/messages';
import { http, useTestApi } from '../helpers/context';
import { waitFor } from '../helpers/wait';
import { peakBufferMemory } from '../helpers/buffer-memory';
import { expectError } from '../helpers/expect';
import { postMultipart, streamUpload } from '../helpers/multipart';

const STORAGE = mkdtempSync(path.join(tmpdir(), 'product-files-'));


const t = useTestApi({ FILE_STORAGE_DIR: STORAGE });
afterAll(() => rm(STORAGE, { recursive: true, force: true }));

const PRODUCTS = '/api/v1/storefront/products';
const MAX = 500_000_000;
type FileDto = { id: string; productId: string; fileName: string; fileSize: number; mimeType: string | null; storageKey: string; createdAt: string };
type ProductDto = { id: string; files: FileDto[] };

async function product(key: string, body: Record<string, unknown> = {}): Promise<ProductDto> {
  const res = await http<{ data: ProductDto }>(t.api.baseUrl, 'POST', PRODUCTS, { key, body: { name: 'Ebook', price: 10, currency: 'USD', type: 'digital', ...body } });
  expect(res.status).toBe(201);
  return res.body.data;
}

/** Every file under the storage root, temporary ones included, relative to it. */
async function filesOnDisk(under = ''): Promise<string[]> {
  const entries = await readdir(path.join(STORAGE, under), { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.relative(STORAGE, path.join(e.parentPath, e.name))).sort();
}

async function snapshot(accountId: string) {
  const [products, files, events, disk] = await Promise.all([
    Product.findAll({ where: { accountId }, order: [['id', 'ASC']], raw: true }),
    ProductFile.findAll({ where: { accountId }, order: [['id', 'ASC']], raw: true }),
    Event.findAll({ where: { accountId }, order: [['id', 'ASC']], raw: true }),
    filesOnDisk(accountId),
  ]);
  return { products, files, events, disk };
}

async function expectNothingWritten(accountId: string, before: Awaited<ReturnType<typeof snapshot>>) {
  expect(await snapshot(accountId)).toEqual(before);
  expect(await filesOnDisk('.partial')).toEqual([]);
}

const filesPath = (productId: string) => `${PRODUCTS}/${productId}/files`;

/** Registers external files (at most MAX bytes each) adding up to `bytes`. */
async function fillStorage(key: string, productId: string, bytes: number) {
  for (let left = bytes; left > 0; left -= MAX) {
    const res = await http(t.api.baseUrl, 'POST', filesPath(productId), { key, body: { fileName: 'big.iso', fileSize: Math.min(left, MAX) } });
    expect(res.status).toBe(201);
  }
}

describe('POST /v1/storefront/products/:id/files (multipart upload)', () => {
  it('streams the file to storage under <account>/<product>/<ULID>/<name> and emits product.updated with the file', async () => {
    const ws = await t.ctx.createWorkspace();
    const p = await product(ws.secretKey);
    const content = Buffer.from('%PDF-1.7 the whole book\n'.repeat(1000));
    const res = await postMultipart(t.api.baseUrl, filesPath(p.id), ws.secretKey, [{ name: 'file', filename: 'book.pdf', contentType: 'application/pdf', data: content }]);
    expect(res.status).toBe(201);
    const file = (res.body as { data: FileDto }).data;
    expect(file).toEqual({
      id: expect.stringMatching(/^file_[0-9A-Z]{26}$/),
      accountId: ws.accountId,
      productId: p.id,
      fileName: 'book.pdf',
      fileSize: content.length,
      mimeType: 'application/pdf',
      storageKey: expect.stringMatching(new RegExp(`^${ws.accountId}/${p.id}/[0-9A-HJKMNP-TV-Z]{26}/book\\.pdf$`)),
      createdAt: expect.any(String),
    });
    expect(await readFile(path.join(STORAGE, file.storageKey))).toEqual(content);
    expect(await filesOnDisk('.partial')).toEqual([]);
    expect(await ProductFile.findByPk(file.id)).toMatchObject({ source: 'upload', fileSize: content.length });

    const retrieved = await http<{ data: ProductDto }>(t.api.baseUrl, 'GET', `${PRODUCTS}/${p.id}`, { key: ws.secretKey });
    expect(retrieved.body.data.files).toEqual([file]);
    const events = await Event.findAll({ where: { accountId: ws.accountId, type: 'service.product.updated.v1' } });
    expect(events.map((e) => e.data)).toEqual([retrieved.body.data]);
  });

  it('keeps the buyer-visible name and sanitises it for the key (no path, no traversal)', async () => {
    const ws = await t.ctx.createWorkspace();
    const p = await product(ws.secretKey);
    const res = await postMultipart(t.api.baseUrl, filesPath(p.id), ws.secretKey, [{ name: 'file', filename: '../../Ébauche finale (v2).pdf', data: 'x' }]);
    expect(res.status).toBe(201);
    const file = (res.body as { data: FileDto }).data;
    expect(file.fileName).toBe('Ébauche finale (v2).pdf');
    expect(file.storageKey).toMatch(/\/Ebauche_finale_v2_\.pdf$/);
    expect(file.storageKey.split('/')).toHaveLength(4);
    expect(await filesOnDisk(ws.accountId)).toEqual([file.storageKey]);
  });

  it('attaches files to any product type but shows them only on digital products', async () => {
    const ws = await t.ctx.createWorkspace();
    const p = await product(ws.secretKey, { type: 'physical', weight: 100 });
    const res = await postMultipart(t.api.baseUrl, filesPath(p.id), ws.secretKey, [{ name: 'file', filename: 'manual.pdf', data: 'x' }]);
    expect(res.status).toBe(201);
    const retrieved = await http<{ data: ProductDto }>(t.api.baseUrl, 'GET', `${PRODUCTS}/${p.id}`, { key: ws.secretKey });
    expect(retrieved.body.data.files).toEqual([]);
  });

  it('refuses a file over 500000000 bytes with 400 FILE_TOO_LARGE while streaming: no row, no event, no blob, flat memory', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'pro' });
    const p = await product(ws.secretKey);
    const before = await snapshot(ws.accountId);
    const held = await peakBufferMemory(async () => {
      const res = await streamUpload(t.api.baseUrl, filesPath(p.id), { key: ws.secretKey, size: MAX + 1 });
      expectError(res, 400, 'FILE_TOO_LARGE');
    });
    await expectNothingWritten(ws.accountId, before);
    // Client and server share this process; buffering the body would hold at least its 500 MB of Buffers. Streamed,
    // what is held is the chunks in flight plus at most 200 ms of garbage between two collections.
    expect(held).toBeLessThan(200 * 1024 * 1024);
  }, 180_000);

  it('accepts a file of exactly 500000000 bytes', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'pro' });
    const p = await product(ws.secretKey);
    const res = await streamUpload(t.api.baseUrl, filesPath(p.id), { key: ws.secretKey, size: MAX, fileName: 'exact.bin' });
    expect(res.status).toBe(201);
    const file = (res.body as { data: FileDto }).data;
    expect(file.fileSize).toBe(MAX);
    expect(await ProductFile.findByPk(file.id)).toMatchObject({ fileSize: MAX });
    await rm(path.join(STORAGE, file.storageKey));
  }, 180_000);

  it('refuses an upload past the storage quota with 403 QUOTA_EXCEEDED while streaming, leaving no blob', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'free' });
    const p = await product(ws.secretKey);
    const limit = PLAN_LIMITS.free.storageBytes;
    await fillStorage(ws.secretKey, p.id, limit - 1000);
    const before = await snapshot(ws.accountId);
    const res = await streamUpload(t.api.baseUrl, filesPath(p.id), { key: ws.secretKey, size: 1001 });
    expectError(res, 403, 'QUOTA_EXCEEDED');
    await expectNothingWritten(ws.accountId, before);
    const fits = await streamUpload(t.api.baseUrl, filesPath(p.id), { key: ws.secretKey, size: 1000 });
    expect(fits.status).toBe(201);
    // Full now: refused before a byte is stored.
    const full = await snapshot(ws.accountId);
    expectError(await streamUpload(t.api.baseUrl, filesPath(p.id), { key: ws.secretKey, size: 1 }), 403, 'QUOTA_EXCEEDED');
    await expectNothingWritten(ws.accountId, full);
  });

  it('re-checks the quota under the account lock: of two uploads that fit alone but not together, one is refused and its blob removed', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'free' });
    const p = await product(ws.secretKey);
    const limit = PLAN_LIMITS.free.storageBytes;
    await fillStorage(ws.secretKey, p.id, limit - 3000);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // Both get past the pre-check and start streaming before either finishes.
    const uploads = [0, 1].map((i) => streamUpload(t.api.baseUrl, filesPath(p.id), { key: ws.secretKey, size: 2000, fileName: `part${i}.bin`, pauseAfter: 100, gate }));
    await waitFor(async () => (await filesOnDisk('.partial')).length >= 2, { timeoutMs: 10_000 });
    expect(await filesOnDisk('.partial')).toHaveLength(2);
    open();
    const results = await Promise.all(uploads);
    expect(results.map((r) => r.status).sort()).toEqual([201, 403]);
    expectError(results.find((r) => r.status === 403)!, 403, 'QUOTA_EXCEEDED');
    const rows = await ProductFile.findAll({ where: { accountId: ws.accountId, source: 'upload' } });
    expect(rows).toHaveLength(1);
    expect(await filesOnDisk(ws.accountId)).toEqual([rows[0]!.storageKey]);
    expect(await filesOnDisk('.partial')).toEqual([]);
  });

  describe('refuses a malformed form with 400 VALIDATION_ERROR, storing nothing', () => {
    const cases: Array<[string, Parameters<typeof postMultipart>[3]]> = [
      ['no part at all', []],
      ['a plain field instead of the file', [{ name: 'file', data: 'not a file' }]],
      ['the file under another name', [{ name: 'upload', filename: 'a.pdf', data: 'x' }]],
      ['a file without a name', [{ name: 'file', filename: '', data: 'x' }]],
      ['an empty file', [{ name: 'file', filename: 'empty.pdf', data: '' }]],
      ['two files', [{ name: 'file', filename: 'a.pdf', data: 'a' }, { name: 'file', filename: 'b.pdf', data: 'b' }]],
      ['a file and an extra field', [{ name: 'file', filename: 'a.pdf', data: 'a' }, { name: 'note', data: 'hello' }]],
      ['a file name over 255 characters', [{ name: 'file', filename: `${'n'.repeat(256)}.pdf`, data: 'a' }]],
    ];
    it.each(cases)('%s', async (_label, parts) => {
      const ws = await t.ctx.createWorkspace();
      const p = await product(ws.secretKey);
      const before = await snapshot(ws.accountId);
      expectError(await postMultipart(t.api.baseUrl, filesPath(p.id), ws.secretKey, parts), 400, 'VALIDATION_ERROR');
      await expectNothingWritten(ws.accountId, before);
    });

    it('a truncated body or a missing boundary', async () => {
      const ws = await t.ctx.createWorkspace();
      const p = await product(ws.secretKey);
      const before = await snapshot(ws.accountId);
      const send = (contentType: string, body: string) =>
        http(t.api.baseUrl, 'POST', filesPath(p.id), { key: ws.secretKey, rawBody: body, headers: { 'content-type': contentType } });
      expectError(await send('multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\nhalf a fi'), 400, 'VALIDATION_ERROR');
      expectError(await send('multipart/form-data', 'no boundary'), 400, 'VALIDATION_ERROR');
      await expectNothingWritten(ws.accountId, before);
    });
  });

  it('answers 415 to a body that is neither JSON nor multipart', async () => {
    const ws = await t.ctx.createWorkspace();
    const p = await product(ws.secretKey);
    const res = await http(t.api.baseUrl, 'POST', filesPath(p.id), { key: ws.secretKey, rawBody: 'file', headers: { 'content-type': 'text/plain' } });
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 404 before reading the body for another workspace, the other environment or an archived product', async () => {
    const ws = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    const p = await product(ws.secretKey);
    const live = await product(ws.liveSecretKey);
    const archived = await product(ws.secretKey);
    await http(t.api.baseUrl, 'DELETE', `${PRODUCTS}/${archived.id}`, { key: ws.secretKey });
    const before = await snapshot(ws.accountId);
    const part = [{ name: 'file', filename: 'a.pdf', data: 'x' }];
    expectError(await postMultipart(t.api.baseUrl, filesPath(p.id), other.secretKey, part), 404, 'RESOURCE_NOT_FOUND');
    expectError(await postMultipart(t.api.baseUrl, filesPath(live.id), ws.secretKey, part), 404, 'RESOURCE_NOT_FOUND');
    expectError(await postMultipart(t.api.baseUrl, filesPath(archived.id), ws.secretKey, part), 404, 'RESOURCE_NOT_FOUND');
    expect(await snapshot(other.accountId)).toMatchObject({ files: [], disk: [] });
    await expectNothingWritten(ws.accountId, before);
  });

  it('answers 403 FORBIDDEN to a publishable key and stores nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const p = await product(ws.secretKey);
    const before = await snapshot(ws.accountId);
    expectError(await postMultipart(t.api.baseUrl, filesPath(p.id), ws.publishableKey, [{ name: 'file', filename: 'a.pdf', data: 'x' }]), 403, 'FORBIDDEN');
    await expectNothingWritten(ws.accountId, before);
  });

  it('replays a retried upload under the same Idempotency-Key (one row, one blob); the key cannot be reused for a JSON registration', async () => {
    const ws = await t.ctx.createWorkspace();
    const p = await product(ws.secretKey);
    const headers = { 'idempotency-key': `upload-${Date.now()}` };
    const part = [{ name: 'file', filename: 'a.pdf', data: 'x'.repeat(100) }];
    const first = await postMultipart(t.api.baseUrl, filesPath(p.id), ws.secretKey, part, headers);
    const retry = await postMultipart(t.api.baseUrl, filesPath(p.id), ws.secretKey, part, headers);
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(await ProductFile.count({ where: { accountId: ws.accountId } })).toBe(1);
    expect(await filesOnDisk(ws.accountId)).toHaveLength(1);
    const json = await http(t.api.baseUrl, 'POST', filesPath(p.id), { key: ws.secretKey, body: { fileName: 'a.pdf', fileSize: 100 }, headers });
    expectError(json, 409, 'IDEMPOTENCY_KEY_REUSED');
  });
});

describe('POST /v1/storefront/products/:id/files (JSON registration)', () => {
  it('records an externally hosted file (no blob of ours) and emits product.updated', async () => {
    const ws = await t.ctx.createWorkspace();
    const p = await product(ws.secretKey);
    const res = await http<{ data: FileDto }>(t.api.baseUrl, 'POST', filesPath(p.id), { key: ws.secretKey, body: { fileName: 'Course.zip', fileSize: 123_456, mimeType: 'application/zip' } });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^file_/),
      accountId: ws.accountId,
      productId: p.id,
      fileName: 'Course.zip',
      fileSize: 123_456,
      mimeType: 'application/zip',
      storageKey: expect.stringMatching(new RegExp(`^${ws.accountId}/${p.id}/[0-9A-Z]{26}/Course\\.zip$`)),
      createdAt: expect.any(String),
    });
    expect(await ProductFile.findByPk(res.body.data.id)).toMatchObject({ source: 'external' });
    expect(await filesOnDisk(ws.accountId)).toEqual([]);
    const events = await Event.findAll({ where: { accountId: ws.accountId, type: 'service.product.updated.v1' } });
    expect((events[0]!.data as ProductDto).files).toEqual([res.body.data]);
  });

  describe('refuses bad input, writing nothing', () => {
    const cases: Array<[string, Record<string, unknown>, number, string, string | undefined]> = [
      ['missing fileName', { fileSize: 10 }, 400, 'VALIDATION_ERROR', 'fileName'],
      ['empty fileName', { fileName: ' ', fileSize: 10 }, 400, 'VALIDATION_ERROR', 'fileName'],
      ['fileName over 255', { fileName: 'x'.repeat(256), fileSize: 10 }, 400, 'VALIDATION_ERROR', 'fileName'],
      ['missing fileSize', { fileName: 'a.pdf' }, 400, 'VALIDATION_ERROR', 'fileSize'],
      ['zero fileSize', { fileName: 'a.pdf', fileSize: 0 }, 400, 'VALIDATION_ERROR', 'fileSize'],
      ['negative fileSize', { fileName: 'a.pdf', fileSize: -1 }, 400, 'VALIDATION_ERROR', 'fileSize'],
      ['fractional fileSize', { fileName: 'a.pdf', fileSize: 1.5 }, 400, 'VALIDATION_ERROR', 'fileSize'],
      ['string fileSize', { fileName: 'a.pdf', fileSize: '10' }, 400, 'VALIDATION_ERROR', 'fileSize'],
      ['mimeType not a string', { fileName: 'a.pdf', fileSize: 10, mimeType: 5 }, 400, 'VALIDATION_ERROR', 'mimeType'],
      ['unknown field', { fileName: 'a.pdf', fileSize: 10, url: 'https://x' }, 400, 'VALIDATION_ERROR', 'url'],
      ['fileSize over 500000000', { fileName: 'a.pdf', fileSize: MAX + 1 }, 400, 'FILE_TOO_LARGE', undefined],
    ];
    it.each(cases)('%s', async (_label, body, status, code, field) => {
      const ws = await t.ctx.createWorkspace({ plan: 'pro' });
      const p = await product(ws.secretKey);
      const before = await snapshot(ws.accountId);
      const res = await http(t.api.baseUrl, 'POST', filesPath(p.id), { key: ws.secretKey, body });
      expectError(res, status, code);
      if (field) expect(JSON.stringify(res.body.error)).toContain(field);
      await expectNothingWritten(ws.accountId, before);
    });
  });

  it('accepts exactly 500000000 bytes', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'pro' });
    const p = await product(ws.secretKey);
    expect((await http(t.api.baseUrl, 'POST', filesPath(p.id), { key: ws.secretKey, body: { fileName: 'a.bin', fileSize: MAX } })).status).toBe(201);
  });

  it('counts towards the storage quota: filling it exactly is allowed, one byte more is 403 QUOTA_EXCEEDED; test and live count apart', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'free' });
    const p = await product(ws.secretKey);
    const limit = PLAN_LIMITS.free.storageBytes;
    for (const size of [MAX, limit - MAX - 10]) {
      expect((await http(t.api.baseUrl, 'POST', filesPath(p.id), { key: ws.secretKey, body: { fileName: 'a.bin', fileSize: size } })).status).toBe(201);
    }
    const before = await snapshot(ws.accountId);
    expectError(await http(t.api.baseUrl, 'POST', filesPath(p.id), { key: ws.secretKey, body: { fileName: 'b.bin', fileSize: 11 } }), 403, 'QUOTA_EXCEEDED');
    await expectNothingWritten(ws.accountId, before);
    expect((await http(t.api.baseUrl, 'POST', filesPath(p.id), { key: ws.secretKey, body: { fileName: 'b.bin', fileSize: 10 } })).status).toBe(201);
    const live = await product(ws.liveSecretKey);
    expect((await http(t.api.baseUrl, 'POST', filesPath(live.id), { key: ws.liveSecretKey, body: { fileName: 'c.bin', fileSize: 1000 } })).status).toBe(201);
  });

  it('is race-safe: concurrent registrations past the storage quota admit exactly what fits', async () => {
    const ws = await t.ctx.createWorkspace({ plan: 'free' });
    const p = await product(ws.secretKey);
    const size = 60_000_000;
    const attempts = 30;
    const results = await Promise.all(Array.from({ length: attempts }, (_, i) => http(t.api.baseUrl, 'POST', filesPath(p.id), { key: ws.secretKey, body: { fileName: `${i}.bin`, fileSize: size } })));
    const fit = Math.floor(PLAN_LIMITS.free.storageBytes / size);
    expect(results.filter((r) => r.status === 201)).toHaveLength(fit);
    expect(results.filter((r) => r.status === 403)).toHaveLength(attempts - fit);
    expect(await ProductFile.count({ where: { accountId: ws.accountId } })).toBe(fit);
  });
});

describe('DELETE /v1/storefront/products/:id/files/:fileId', () => {
  async function upload(key: string, productId: string, name = 'a.pdf'): Promise<FileDto> {
    const res = await postMultipart(t.api.baseUrl, filesPath(productId), key, [{ name: 'file', filename: name, data: 'content' }]);
    expect(res.status).toBe(201);
    return (res.body as { data: FileDto }).data;
  }

  it('removes the row at once (204), emits product.updated, and leaves the blob to a file-cleanup workflow tagged with the workspace', async () => {
    const ws = await t.ctx.createWorkspace();
    const p = await product(ws.secretKey);
    const kept = await upload(ws.secretKey, p.id, 'kept.pdf');
    const file = await upload(ws.secretKey, p.id, 'gone.pdf');
    const res = await http(t.api.baseUrl, 'DELETE', `${filesPath(p.id)}/${file.id}`, { key: ws.secretKey });
    expect(res.status).toBe(204);
    expect(await ProductFile.findByPk(file.id)).toBeNull();
    const retrieved = await http<{ data: ProductDto }>(t.api.baseUrl, 'GET', `${PRODUCTS}/${p.id}`, { key: ws.secretKey });
    expect(retrieved.body.data.files.map((f) => f.id)).toEqual([kept.id]);
    const events = await Event.findAll({ where: { accountId: ws.accountId, type: 'service.product.updated.v1' }, order: [['id', 'ASC']] });
    expect(events.at(-1)!.data).toEqual(retrieved.body.data);

    // The blob outlives the row until the workflow's timer fires (FILE_CLEANUP_DELAY, 5m by default).
    expect(await filesOnDisk(ws.accountId)).toEqual([kept.storageKey, file.storageKey].sort());
    const description = await t.ctx.temporal.workflow.getHandle(`file-cleanup:${file.id}`).describe();
    expect(description.type).toBe('fileCleanup');
    expect(description.status.name).toBe('RUNNING');
    expect(description.typedSearchAttributes.get(ACCOUNT_ID)).toBe(ws.accountId);

    expectError(await http(t.api.baseUrl, 'DELETE', `${filesPath(p.id)}/${file.id}`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
  });

  it('starts no cleanup for an externally hosted file', async () => {
    const ws = await t.ctx.createWorkspace();
    const p = await product(ws.secretKey);
    const res = await http<{ data: FileDto }>(t.api.baseUrl, 'POST', filesPath(p.id), { key: ws.secretKey, body: { fileName: 'a.zip', fileSize: 10 } });
    expect((await http(t.api.baseUrl, 'DELETE', `${filesPath(p.id)}/${res.body.data.id}`, { key: ws.secretKey })).status).toBe(204);
    await expect(t.ctx.temporal.workflow.getHandle(`file-cleanup:${res.body.data.id}`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  it('works on an archived product, so its storage can be freed', async () => {
    const ws = await t.ctx.createWorkspace();
    const p = await product(ws.secretKey);
    const file = await upload(ws.secretKey, p.id);
    await http(t.api.baseUrl, 'DELETE', `${PRODUCTS}/${p.id}`, { key: ws.secretKey });
    expect((await http(t.api.baseUrl, 'DELETE', `${filesPath(p.id)}/${file.id}`, { key: ws.secretKey })).status).toBe(204);
  });

  it('answers 404 for another workspace, the other environment, a file of another product or an unknown file, deleting nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const other = await t.ctx.createWorkspace();
    const p = await product(ws.secretKey);
    const sibling = await product(ws.secretKey);
    const file = await upload(ws.secretKey, p.id);
    const live = await product(ws.liveSecretKey);
    const liveFile = await upload(ws.liveSecretKey, live.id);
    const before = await snapshot(ws.accountId);
    const del = (key: string, productId: string, fileId: string) => http(t.api.baseUrl, 'DELETE', `${filesPath(productId)}/${fileId}`, { key });
    expectError(await del(other.secretKey, p.id, file.id), 404, 'RESOURCE_NOT_FOUND');
    expectError(await del(ws.secretKey, sibling.id, file.id), 404, 'RESOURCE_NOT_FOUND');
    expectError(await del(ws.secretKey, p.id, newId('file')), 404, 'RESOURCE_NOT_FOUND');
    expectError(await del(ws.secretKey, live.id, liveFile.id), 404, 'RESOURCE_NOT_FOUND');
    await expectNothingWritten(ws.accountId, before);
  });
});
