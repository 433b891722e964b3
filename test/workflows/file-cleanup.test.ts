import { mkdtempSync } from 'node:fs';
import { access, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFileActivities } from '../../activities/files';
import { createStorage } from '../../lib/storage';
import { ACCOUNT_ID, workflowIds } from '../../workflows/messages';
import { insertProduct, insertProductFile } from '../fixtures/products';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { postMultipart } from '../helpers/multipart';
import { startTestWorker, type RunningWorker } from '../helpers/worker';
import { waitFor } from '../helpers/wait';
import { plainHistory } from '../helpers/temporal-codec';

const STORAGE = mkdtempSync(path.join(tmpdir(), 'file-cleanup-'));
const TASK_QUEUE = `file-cleanup-${Date.now()}`;
const DELAY_MS = 4_000;

let ctx: TestContext;
let api: TestApi;
const storage = createStorage({ FILE_STORAGE_DIR: STORAGE });

beforeAll(async () => {
  ctx = await createTestContext();
  // The API starts cleanups on this test's own task queue, with a short delay.
  api = await ctx.startApi({ FILE_STORAGE_DIR: STORAGE, FILE_CLEANUP_DELAY: `${DELAY_MS / 1000}s`, TEMPORAL_TASK_QUEUE: TASK_QUEUE });
});
afterAll(async () => {
  await ctx.close();
  await rm(STORAGE, { recursive: true, force: true });
});

const exists = (key: string) => access(path.join(STORAGE, key)).then(() => true, () => false);

describe('file-cleanup workflow', () => {
  it('removes a deleted upload’s blob after the delay, even when the worker restarts during the wait', async () => {
    let worker: RunningWorker | undefined = await startTestWorker(ctx.sequelize, TASK_QUEUE, { storage });
    try {
      const ws = await ctx.createWorkspace();
      const created = await http<{ data: { id: string } }>(api.baseUrl, 'POST', '/api/v1/storefront/products', {
        key: ws.secretKey,
        body: { name: 'Ebook', price: 10, currency: 'USD', type: 'digital' },
      });
      const productId = created.body.data.id;
      const uploaded = await postMultipart(api.baseUrl, `/api/v1/storefront/products/${productId}/files`, ws.secretKey, [{ name: 'file', filename: 'book.pdf', data: 'pages' }]);
      const file = (uploaded.body as { data: { id: string; storageKey: string } }).data;
      expect(await exists(file.storageKey)).toBe(true);

      const deletedAt = Date.now();
      expect((await http(api.baseUrl, 'DELETE', `/api/v1/storefront/products/${productId}/files/${file.id}`, { key: ws.secretKey })).status).toBe(204);
      const handle = ctx.temporal.workflow.getHandle(workflowIds.fileCleanup(file.id));
      const description = await handle.describe();
      expect(description.workflowId).toBe(`file-cleanup:${file.id}`);
      expect(description.typedSearchAttributes.get(ACCOUNT_ID)).toBe(ws.accountId);

      // The first worker takes the workflow as far as its timer, then goes away.
      await waitFor(async () => (await handle.fetchHistory()).events?.some((e) => e.timerStartedEventAttributes) ?? false, { timeoutMs: 30_000 });
      await worker.stop();
      worker = undefined;

      await new Promise((r) => setTimeout(r, Math.max(0, deletedAt + DELAY_MS + 1_000 - Date.now())));
      expect(await exists(file.storageKey)).toBe(true); // timer fired, but no worker: nothing ran

      worker = await startTestWorker(ctx.sequelize, TASK_QUEUE, { storage });
      expect(await handle.result()).toBe('removed');
      expect(await exists(file.storageKey)).toBe(false);
      expect(await exists(path.dirname(file.storageKey))).toBe(false);

      if (process.env.RECORD_HISTORIES === '1') {
        const history = await plainHistory(handle);
        await writeFile(path.join(__dirname, '../replay/histories/file-cleanup.json'), JSON.stringify(history, null, 2));
      }
    } finally {
      await worker?.stop();
    }
  });
});

describe('removeDeletedFileBlob activity', () => {
  it('keeps the blob while a row still points at it, removes it once the row is gone, and succeeds again when it is already gone', async () => {
    const { removeDeletedFileBlob } = createFileActivities({ sequelize: ctx.sequelize, storage });
    const ws = await ctx.createWorkspace();
    const productId = await insertProduct(ctx.sequelize, ws);
    const row = await insertProductFile(ws, productId, { fileName: 'kept.pdf' });
    const { storageKey } = row;
    await mkdir(path.dirname(path.join(STORAGE, storageKey)), { recursive: true });
    await writeFile(path.join(STORAGE, storageKey), 'data');

    // As if the deleting transaction had rolled back after starting the workflow.
    expect(await removeDeletedFileBlob({ fileId: row.id, storageKey })).toBe('kept');
    expect(await exists(storageKey)).toBe(true);

    await row.destroy();
    expect(await removeDeletedFileBlob({ fileId: row.id, storageKey })).toBe('removed');
    expect(await exists(storageKey)).toBe(false);
    expect(await removeDeletedFileBlob({ fileId: row.id, storageKey })).toBe('removed');
  });
});
