import { createHash, randomUUID } from 'node:crypto';
import { appendFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { CreateMultipartUploadCommand, ListMultipartUploadsCommand, ListObjectsV2Command, UploadPartCommand } from '@aws-sdk/client-s3';
import type { BlobStorage } from '../../lib/storage';
import { createLocalDiskStorage } from '../../lib/storage/local-disk';
import { createS3Storage, PART_SIZE } from '../../lib/storage/s3';
import { peakBufferMemory } from '../helpers/buffer-memory';
import { startS3Server, type S3TestServer } from '../helpers/s3-server';

/**
 * The BlobStorage contract, run the same on both backends: local disk (FILE_STORAGE=local) and a bucket on a real
 * S3-compatible server (FILE_STORAGE=s3, SeaweedFS started here). What differs between them is only how a test
 * looks behind the interface: at temporary data (local `.partial` files, S3 unfinished multipart uploads) and at
 * what is stored.
 */
jest.setTimeout(180_000);

interface Backend {
  storage: BlobStorage;
  /** Every stored blob's key, sorted. */
  keys(): Promise<string[]>;
  /** How many writes' temporary data is there. */
  temporaryWrites(): Promise<number>;
  /** Temporary data as a write killed right now leaves it; `touch` gives it more data, as a live write would. */
  abandonWrite(): Promise<{ touch(): Promise<void> }>;
  close(): Promise<void>;
}

let s3: S3TestServer;
beforeAll(async () => {
  s3 = await startS3Server();
  // The adapter takes its credentials from the standard AWS chain, as in production: here, the environment.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey });
});
afterAll(() => s3?.stop());

async function localBackend(): Promise<Backend> {
  const root = await mkdtemp(path.join(tmpdir(), 'storage-contract-'));
  const temps = path.join(root, '.partial');
  return {
    storage: createLocalDiskStorage(root),
    async keys() {
      const entries = await readdir(root, { recursive: true, withFileTypes: true });
      return entries
        .filter((e) => e.isFile())
        .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
        .filter((key) => !key.startsWith('.partial'))
        .sort();
    },
    temporaryWrites: async () => (await readdir(temps)).length,
    async abandonWrite() {
      const file = path.join(temps, randomUUID());
      await writeFile(file, 'half');
      return { touch: () => appendFile(file, ' more') };
    },
    close: () => rm(root, { recursive: true, force: true }),
  };
}

async function s3Backend(): Promise<Backend> {
  const Bucket = await s3.createBucket();
  return {
    storage: createS3Storage({ bucket: Bucket, region: s3.region, endpoint: s3.endpoint, forcePathStyle: true }),
    async keys() {
      const listed = await s3.client.send(new ListObjectsV2Command({ Bucket }));
      return (listed.Contents ?? []).map((o) => o.Key!).sort();
    },
    temporaryWrites: async () => ((await s3.client.send(new ListMultipartUploadsCommand({ Bucket }))).Uploads ?? []).length,
    async abandonWrite() {
      const Key = `abandoned/${randomUUID()}`;
      const { UploadId } = await s3.client.send(new CreateMultipartUploadCommand({ Bucket, Key }));
      const part = (PartNumber: number) => s3.client.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: Buffer.alloc(1024, PartNumber) }));
      await part(1);
      return { touch: async () => void (await part(2)) };
    },
    close: async () => undefined,
  };
}

/** `size` bytes made on demand from one reused 1 MiB chunk, never held whole; `failAt` fails the body there. */
function generated(size: number, { failAt }: { failAt?: number } = {}): { body: Readable; sha256: () => string } {
  const chunk = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < chunk.length; i += 1) chunk[i] = (i * 31) % 251;
  const hash = createHash('sha256');
  let sent = 0;
  const body = new Readable({
    read() {
      if (failAt !== undefined && sent >= failAt) {
        this.destroy(new Error('the client went away'));
        return;
      }
      if (sent >= size) {
        this.push(null);
        return;
      }
      const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
      sent += piece.length;
      hash.update(piece);
      this.push(piece);
    },
  });
  return { body, sha256: () => hash.digest('hex') };
}

async function sha256Of(body: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const piece of body) hash.update(piece as Buffer);
  return hash.digest('hex');
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each([
  ['local disk', localBackend],
  ['S3 (SeaweedFS)', s3Backend],
])('BlobStorage contract: %s', (_name, makeBackend) => {
  let backend: Backend;
  let storage: BlobStorage;
  beforeEach(async () => {
    backend = await makeBackend();
    storage = backend.storage;
  });
  afterEach(() => backend.close());

  it('writes the whole body under the key and reports its size, leaving no temporary data', async () => {
    const { size } = await storage.put('acct/prod/01/file.txt', Readable.from([Buffer.from('hello '), Buffer.from('world')]));
    expect(size).toBe(11);
    const opened = await storage.open('acct/prod/01/file.txt');
    expect(opened?.size).toBe(11);
    expect(Buffer.concat(await opened!.body.toArray()).toString()).toBe('hello world');
    expect(await backend.keys()).toEqual(['acct/prod/01/file.txt']);
    expect(await backend.temporaryWrites()).toBe(0);
  });

  it('stores an empty body as an empty blob', async () => {
    expect(await storage.put('acct/prod/01/empty', Readable.from([]))).toEqual({ size: 0 });
    const opened = await storage.open('acct/prod/01/empty');
    expect(opened?.size).toBe(0);
    expect(await opened!.body.toArray()).toEqual([]);
  });

  it('streams a 200 MB blob in and out whole with flat memory (many multipart parts on S3)', async () => {
    const size = 200_000_000;
    const upload = generated(size);
    let readBack = '';
    const held = await peakBufferMemory(async () => {
      expect(await storage.put('acct/prod/01/big.bin', upload.body)).toEqual({ size });
      const opened = await storage.open('acct/prod/01/big.bin');
      expect(opened?.size).toBe(size);
      readBack = await sha256Of(opened!.body);
    });
    expect(readBack).toBe(upload.sha256());
    expect(await backend.temporaryWrites()).toBe(0);
    // Buffered whole, 200 MB would be held; streamed, it is the parts in flight (~4 x 5 MiB on S3) plus at most
    // 200 ms of garbage between two collections.
    expect(held).toBeLessThan(64 * 1024 * 1024);
  });

  it.each([
    ['before any byte', 0],
    ['after several parts', 3 * PART_SIZE + 1000],
  ])('a body that fails %s fails the write and leaves nothing behind', async (_when, failAt) => {
    const { body } = generated(10 * PART_SIZE, { failAt });
    await expect(storage.put('acct/prod/01/broken.bin', body)).rejects.toThrow('the client went away');
    expect(await storage.open('acct/prod/01/broken.bin')).toBeNull();
    expect(await backend.keys()).toEqual([]);
    expect(await backend.temporaryWrites()).toBe(0);
  });

  it('refuses keys that are not relative /-separated paths, before touching anything', async () => {
    for (const key of ['../x', 'a/../../x', './x', 'a//b', '/a', 'a/', 'a\\b']) {
      await expect(storage.put(key, Readable.from(['x']))).rejects.toThrow('invalid storage key');
      await expect(storage.open(key)).rejects.toThrow('invalid storage key');
      await expect(storage.remove(key)).rejects.toThrow('invalid storage key');
    }
    expect(await backend.keys()).toEqual([]);
  });

  it('opens nothing for a missing key, a prefix of stored keys or a path through a blob', async () => {
    await storage.put('acct/prod/01/file.txt', Readable.from(['hello world']));
    for (const key of ['acct/prod/02/file.txt', 'acct/prod/01', 'acct', 'acct/prod/01/file.txt/x']) expect(await storage.open(key)).toBeNull();
  });

  it('streams a blob opened before its removal to the end', async () => {
    const content = Buffer.alloc(12 * 1024 * 1024, 7);
    await storage.put('acct/prod/01/file.bin', Readable.from([content]));
    const opened = await storage.open('acct/prod/01/file.bin');
    await storage.remove('acct/prod/01/file.bin');
    expect(await storage.open('acct/prod/01/file.bin')).toBeNull();
    // Buffer.equals: jest's toEqual walks 12 MiB byte by byte for minutes.
    expect(Buffer.concat(await opened!.body.toArray()).equals(content)).toBe(true);
  });

  it('overwrites a key with a complete new blob (a retried label render)', async () => {
    await storage.put('labels/acct/shp_1.pdf', Readable.from(['first']));
    await storage.put('labels/acct/shp_1.pdf', Readable.from(['second render']));
    const opened = await storage.open('labels/acct/shp_1.pdf');
    expect(Buffer.concat(await opened!.body.toArray()).toString()).toBe('second render');
  });

  it('removes idempotently, leaving the other blobs', async () => {
    await storage.put('acct/prod/01/a.txt', Readable.from(['a']));
    await storage.put('acct/prod/02/b.txt', Readable.from(['b']));
    await storage.remove('acct/prod/01/a.txt');
    await storage.remove('acct/prod/01/a.txt');
    await storage.remove('acct/prod/03/never.txt');
    expect(await storage.open('acct/prod/01/a.txt')).toBeNull();
    expect(await backend.keys()).toEqual(['acct/prod/02/b.txt']);
  });

  it('sweeps only writes untouched since the cut-off: never one touched after it, a newer one or a live write', async () => {
    await backend.abandonWrite();
    const touchedLater = await backend.abandonWrite();
    // Servers keep these times to the second: a clear second on each side of the cut-off.
    await pause(1_100);
    const cutOff = new Date();
    await pause(1_100);
    await touchedLater.touch();
    await backend.abandonWrite();
    const live = new Readable({ read() {} });
    const writing = storage.put('acct/prod/live/file.bin', live);
    // More than a part, so on S3 the live write is a multipart upload with a part stored.
    live.push(Buffer.alloc(PART_SIZE + 1, 1));
    await waitForCount(() => backend.temporaryWrites(), 4);

    expect(await storage.sweepAbandonedWrites(cutOff)).toBe(1);
    expect(await backend.temporaryWrites()).toBe(3);
    live.push(Buffer.from('end'));
    live.push(null);
    expect(await writing).toEqual({ size: PART_SIZE + 4 });
    const written = await storage.open('acct/prod/live/file.bin');
    written?.body.destroy();
    expect(written?.size).toBe(PART_SIZE + 4);
    expect(await storage.sweepAbandonedWrites(cutOff)).toBe(0);
  });
});

async function waitForCount(count: () => Promise<number>, expected: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await count()) !== expected) {
    if (Date.now() > deadline) throw new Error(`expected ${expected} temporary writes, found ${await count()}`);
    await pause(50);
  }
}
