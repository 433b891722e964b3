import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { msToTs } from '@temporalio/common/lib/time';
import { Shipment } from '../../db/models';
import { insertDelivery } from '../fixtures/deliveries';
import { insertOrigin, insertShipment } from '../fixtures/shipping';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { switchFulfillment } from '../helpers/inventory';
import { postMultipart } from '../helpers/multipart';
import { usePrivateDatabase } from '../helpers/private-database';
import { startS3Server, type S3TestServer } from '../helpers/s3-server';
import { waitFor } from '../helpers/wait';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

/**
 * FILE_STORAGE=s3 end to end: two API instances in this process (as two hosts: each with a FILE_STORAGE_DIR of its
 * own that must stay empty) and `worker/main.ts` as a child process, all keeping blobs in one bucket of a real
 * S3-compatible server (SeaweedFS). The worker runs in its own namespace, on its own database (its relay takes only
 * this file's workflow starts).
 */
jest.setTimeout(240_000);

usePrivateDatabase('s3_storage_e2e');
const namespace = `s3-storage-e2e-${process.pid}-${Date.now()}`;
const taskQueue = 'commerce-s3-e2e';

let s3: S3TestServer;
let bucket: string;
let ctx: TestContext;
let first: TestApi;
let second: TestApi;
let worker: WorkerProcess | undefined;
const localDirs: string[] = [];

async function emptyDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 's3-e2e-local-'));
  localDirs.push(dir);
  return dir;
}

beforeAll(async () => {
  s3 = await startS3Server();
  bucket = await s3.createBucket();
  const storageEnv = s3.env(bucket);
  // The in-process APIs' S3 clients take their credentials from the standard AWS chain, as in production.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, TEMPORAL_NAMESPACE: namespace });
  ctx = await createTestContext();
  await ctx.temporal.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  worker = await startWorkerProcess({ ...storageEnv, FILE_STORAGE_DIR: await emptyDir(), TEMPORAL_TASK_QUEUE: taskQueue });
  const apiEnv = { ...storageEnv, TEMPORAL_TASK_QUEUE: taskQueue, FILE_CLEANUP_DELAY: '2s' };
  first = await ctx.startApi({ ...apiEnv, FILE_STORAGE_DIR: await emptyDir() });
  second = await ctx.startApi({ ...apiEnv, FILE_STORAGE_DIR: await emptyDir() });
});
afterAll(async () => {
  await worker?.stop();
  await ctx?.close();
  await s3?.stop();
  await Promise.all(localDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const until = <T>(probe: () => Promise<T | undefined | false>, what: string) =>
  waitFor(probe, { timeoutMs: 90_000, intervalMs: 200, describe: () => `${what}\n--- worker output ---\n${worker?.output() ?? ''}\n--- SeaweedFS ---\n${s3.output()}` });

async function objectBytes(key: string): Promise<Buffer | null> {
  try {
    const object = await s3.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Buffer.from(await object.Body!.transformToByteArray());
  } catch (err) {
    if ((err as Error).name === 'NoSuchKey') return null;
    throw err;
  }
}

async function bucketKeys(prefix: string): Promise<string[]> {
  return ((await s3.client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }))).Contents ?? []).map((o) => o.Key!);
}

/** No host wrote a byte to its own disk: every blob went to the bucket. */
async function expectLocalDisksUntouched() {
  for (const dir of localDirs) expect(await readdir(dir)).toEqual([]);
}

describe('blob storage on S3 (FILE_STORAGE=s3), API and worker', () => {
  it('an upload through one API is in the bucket, downloads through the other’s signed link, and goes from the bucket after delete', async () => {
    const ws = await ctx.createWorkspace({ plan: 'pro' });
    const created = await http<{ data: { id: string } }>(first.baseUrl, 'POST', '/api/v1/storefront/products', {
      key: ws.secretKey,
      body: { name: 'Field guide', price: 10, currency: 'USD', type: 'digital' },
    });
    const productId = created.body.data.id;
    // Over one 5 MiB part, so the upload is a multipart upload.
    const content = randomBytes(7 * 1024 * 1024 + 123);
    const uploaded = await postMultipart(first.baseUrl, `/api/v1/storefront/products/${productId}/files`, ws.secretKey, [
      { name: 'file', filename: 'guide.pdf', contentType: 'application/pdf', data: content },
    ]);
    expect(uploaded.status).toBe(201);
    const file = (uploaded.body as { data: { id: string; storageKey: string; fileSize: number } }).data;
    expect(file.fileSize).toBe(content.length);
    expect((await objectBytes(file.storageKey))?.equals(content)).toBe(true);
    await expectLocalDisksUntouched();

    // A buyer's download link (the delivery as checkout fulfillment writes it), served by the other host.
    const delivery = await insertDelivery(ctx.sequelize, ws, productId, { fileId: file.id });
    const dto = await http<{ data: { downloadUrl: string } }>(first.baseUrl, 'GET', `/api/v1/storefront/deliveries/${delivery.id}`, { key: ws.secretKey });
    const link = new URL(dto.body.data.downloadUrl).pathname;
    const downloaded = await fetch(`${second.baseUrl}${link}`);
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get('content-length')).toBe(String(content.length));
    expect(downloaded.headers.get('content-disposition')).toContain('guide.pdf');
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(content)).toBe(true);

    // Delete: the row goes at once (404 on the link), the object once the worker's file-cleanup workflow has run.
    expect((await http(second.baseUrl, 'DELETE', `/api/v1/storefront/products/${productId}/files/${file.id}`, { key: ws.secretKey })).status).toBe(204);
    expect((await fetch(`${first.baseUrl}${link}`)).status).toBe(404);
    await until(async () => (await objectBytes(file.storageKey)) === null, 'the file-cleanup workflow removing the object');
    expect(await bucketKeys(`${ws.accountId}/`)).toEqual([]);
    await expectLocalDisksUntouched();
  });

  it('a shipping label rendered by the worker is stored in the bucket and served through its signed link', async () => {
    const ws = await ctx.createWorkspace();
    await switchFulfillment(first.baseUrl, ws.secretKey, true);
    await insertOrigin(ws);
    // Its workflow start is recorded with it; the worker's relay starts it, and the workflow books and renders.
    const shipmentId = await insertShipment(ctx.sequelize, ws);
    const shipment = await until(async () => {
      const row = await Shipment.findByPk(shipmentId);
      return row?.labelKey ? row : undefined;
    }, 'the shipment workflow rendering its label');
    const stored = await objectBytes(shipment.labelKey!);
    expect(stored?.subarray(0, 5).toString()).toBe('%PDF-');

    const label = await http<{ data: { url: string } }>(second.baseUrl, 'GET', `/api/v1/shipping/shipments/${shipmentId}/label`, { key: ws.secretKey });
    expect(label.status).toBe(200);
    const served = await fetch(`${first.baseUrl}${new URL(label.body.data.url).pathname}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(stored);
    await expectLocalDisksUntouched();
  });
});
