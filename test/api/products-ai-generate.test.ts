import { WorkflowNotFoundError } from '@temporalio/client';
import { QueryTypes } from 'sequelize';
import { loadConfig } from '../../lib/config';
import { PLAN_LIMITS } from '../../lib/plan-limits';
import { ACCOUNT_ID, workflowIds, type AiGenerationOutcome } from '../../workflows/messages';
import { countAiRuns, insertAiRuns } from '../fixtures/ai-runs';
import { copyJson, startChatCompletionsServer, type ChatCompletionsServer } from '../helpers/chat-completions-server';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { startTestWorker, type RunningWorker } from '../helpers/worker';

const PRODUCTS = '/api/v1/storefront/products';
type ProductDto = Record<string, unknown> & { id: string; description: string | null; metadata: Record<string, string> };

let ctx: TestContext;
let provider: ChatCompletionsServer;
/** API and worker on one task queue, with no provider configured: the built-in offline generator. */
let offline: { api: TestApi; worker: RunningWorker };
/** API and worker on another queue; the worker's config points AI_BASE_URL at the local provider server. */
let viaProvider: { api: TestApi; worker: RunningWorker };
const suffix = Date.now().toString(36);
// Worker and API must agree on it: the product.updated payload the worker emits carries pageUrl.
const PUBLIC_BASE_URL = 'https://shop.example.com';

beforeAll(async () => {
  ctx = await createTestContext();
  provider = await startChatCompletionsServer();
  const offlineQueue = `ai-api-offline-${suffix}`;
  const providerQueue = `ai-api-provider-${suffix}`;
  offline = {
    worker: await startTestWorker(ctx.sequelize, offlineQueue, { config: loadConfig({ ...process.env, PUBLIC_BASE_URL }) }),
    // The app starts workflows on config.TEMPORAL_TASK_QUEUE, so each API instance talks to its own worker.
    api: await ctx.startApi({ TEMPORAL_TASK_QUEUE: offlineQueue, PUBLIC_BASE_URL }),
  };
  viaProvider = {
    worker: await startTestWorker(ctx.sequelize, providerQueue, {
      config: loadConfig({ ...process.env, PUBLIC_BASE_URL, AI_BASE_URL: provider.baseURL, AI_MODEL: 'api-model', AI_API_KEY: 'sk-api-test' }),
    }),
    api: await ctx.startApi({ TEMPORAL_TASK_QUEUE: providerQueue, PUBLIC_BASE_URL }),
  };
});
afterAll(async () => {
  await offline?.worker.stop();
  await viaProvider?.worker.stop();
  await provider?.close();
  await ctx?.close();
});
beforeEach(() => {
  provider.requests.length = 0;
  provider.reply(() => ({ content: copyJson() }));
});

const body = {
  name: 'Trail Runner',
  price: 120,
  currency: 'USD',
  type: 'physical',
  weight: 300,
  brand: 'Acme',
  description: 'Light shoe for trails.',
  thumbnail: 'https://cdn.example.com/t.png',
  coverImages: ['https://cdn.example.com/1.png', 'https://cdn.example.com/2.png'],
  metadata: { sku: 'TR-1' },
};

async function create(api: TestApi, key: string, extra: Record<string, unknown> = {}): Promise<ProductDto> {
  const res = await http<{ data: ProductDto }>(api.baseUrl, 'POST', PRODUCTS, { key, body: { ...body, ...extra } });
  expect(res.status).toBe(201);
  return res.body.data;
}

async function get(api: TestApi, key: string, id: string): Promise<ProductDto> {
  const res = await http<{ data: ProductDto }>(api.baseUrl, 'GET', `${PRODUCTS}/${id}`, { key });
  expect(res.status).toBe(200);
  return res.body.data;
}

const aiGenerate = (api: TestApi, key: string, id: string) =>
  http<{ data: { message: string }; error: unknown }>(api.baseUrl, 'POST', `${PRODUCTS}/${id}/ai-generate`, { key });

const workflow = (productId: string) => ctx.temporal.workflow.getHandle<() => Promise<AiGenerationOutcome[]>>(workflowIds.aiGeneration(productId));

async function workflowExists(productId: string): Promise<boolean> {
  return workflow(productId)
    .describe()
    .then(
      () => true,
      (err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      },
    );
}

describe('AI generation through the products API', () => {
  it('create with aiGenerate:true answers generating, then the offline generator completes it without touching images', async () => {
    const ws = await ctx.createWorkspace();
    const created = await create(offline.api, ws.secretKey, { aiGenerate: true });
    expect(created).toMatchObject({ aiGenerated: true, aiStatus: 'generating', description: 'Light shoe for trails.' });

    expect(await workflow(created.id).result()).toEqual(['completed']);
    const described = await workflow(created.id).describe();
    expect(described.typedSearchAttributes.get(ACCOUNT_ID)).toBe(ws.accountId);

    const after = await get(offline.api, ws.secretKey, created.id);
    expect(after).toMatchObject({
      aiGenerated: true,
      aiStatus: 'completed',
      thumbnail: body.thumbnail,
      coverImages: body.coverImages,
      metadata: {
        sku: 'TR-1',
        seoTitle: 'Trail Runner | Acme',
        metaDescription: expect.stringContaining('Light shoe for trails.'),
        featureBullets: expect.stringContaining('Made by Acme'),
      },
    });
    expect(after.description).toContain('**Trail Runner** by Acme is a physical product available for USD 120.');
    expect(new Date(after.updatedAt as string).getTime()).toBeGreaterThan(new Date(created.updatedAt as string).getTime());
    expect(await countAiRuns(ctx.sequelize, { accountId: ws.accountId, environment: 'test' })).toBe(1);

    const events = await ctx.sequelize.query<{ type: string; data: ProductDto }>(
      `SELECT type, data FROM events WHERE account_id = :accountId ORDER BY id`,
      { replacements: { accountId: ws.accountId }, type: QueryTypes.SELECT },
    );
    expect(events.map((e) => [e.type, e.data.aiStatus])).toEqual([
      ['service.product.created.v1', 'generating'],
      ['service.product.updated.v1', 'completed'],
    ]);
    expect(events[1]!.data).toEqual(after);
  });

  it('POST ai-generate answers 202 {message} and the configured provider rewrites the copy', async () => {
    const ws = await ctx.createWorkspace();
    const product = await create(viaProvider.api, ws.secretKey);
    expect(product).toMatchObject({ aiGenerated: false, aiStatus: null });

    const res = await aiGenerate(viaProvider.api, ws.secretKey, product.id);
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({ message: expect.any(String) });
    expect(res.body.error).toBeNull();

    expect(await workflow(product.id).result()).toEqual(['completed']);
    const after = await get(viaProvider.api, ws.secretKey, product.id);
    expect(after).toMatchObject({
      aiGenerated: true,
      aiStatus: 'completed',
      description: 'A **great** product for testing, written by the provider.',
      thumbnail: body.thumbnail,
      coverImages: body.coverImages,
      metadata: { sku: 'TR-1', seoTitle: 'Great Product | Test', featureBullets: 'Fast\nReliable\nTested' },
    });
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0]!.body.model).toBe('api-model');
    expect(provider.requests[0]!.headers.authorization).toBe('Bearer sk-api-test');
  });

  it('a second request while a run is in flight starts no duplicate and uses no quota', async () => {
    const ws = await ctx.createWorkspace();
    const product = await create(viaProvider.api, ws.secretKey);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let called!: () => void;
    const inFlight = new Promise<void>((resolve) => (called = resolve));
    provider.reply(async () => {
      called();
      await released;
      return { content: copyJson() };
    });

    const first = await aiGenerate(viaProvider.api, ws.secretKey, product.id);
    expect(first.status).toBe(202);
    await inFlight;
    const { runId } = await workflow(product.id).describe();

    const second = await aiGenerate(viaProvider.api, ws.secretKey, product.id);
    expect(second.status).toBe(202);
    expect(second.body.data.message).not.toBe(first.body.data.message);
    expect((await get(viaProvider.api, ws.secretKey, product.id)).aiStatus).toBe('generating');
    expect((await workflow(product.id).describe()).runId).toBe(runId);

    release();
    // The second request recorded no start: the running workflow was not even signalled.
    expect(await workflow(product.id).result()).toEqual(['completed']);
    expect(provider.requests).toHaveLength(1);
    expect(await countAiRuns(ctx.sequelize, { accountId: ws.accountId, environment: 'test' })).toBe(1);
  });

  it('gives 403 QUOTA_EXCEEDED when the month is used up, changing nothing and starting nothing', async () => {
    const ws = await ctx.createWorkspace({ plan: 'free' });
    const tenant = { accountId: ws.accountId, environment: 'test' as const };
    const product = await create(offline.api, ws.secretKey);
    await insertAiRuns(ctx.sequelize, tenant, product.id, PLAN_LIMITS.free.aiGenerationsPerMonth);

    const refused = await aiGenerate(offline.api, ws.secretKey, product.id);
    expectError(refused, 403, 'QUOTA_EXCEEDED');
    expect(await get(offline.api, ws.secretKey, product.id)).toEqual(product);
    expect(await countAiRuns(ctx.sequelize, tenant)).toBe(PLAN_LIMITS.free.aiGenerationsPerMonth);
    expect(await workflowExists(product.id)).toBe(false);

    // On create the whole request is refused: no product, no run.
    const res = await http(offline.api.baseUrl, 'POST', PRODUCTS, { key: ws.secretKey, body: { ...body, aiGenerate: true } });
    expectError(res, 403, 'QUOTA_EXCEEDED');
    const list = await http<{ data: ProductDto[] }>(offline.api.baseUrl, 'GET', PRODUCTS, { key: ws.secretKey });
    expect(list.body.data.map((p) => p.id)).toEqual([product.id]);

    // Live mode has its own quota.
    const live = await create(offline.api, ws.liveSecretKey);
    expect((await aiGenerate(offline.api, ws.liveSecretKey, live.id)).status).toBe(202);
    expect(await workflow(live.id).result()).toEqual(['completed']);
  });

  it('answers 404 for a product of another workspace, of the other environment, or unknown', async () => {
    const owner = await ctx.createWorkspace();
    const stranger = await ctx.createWorkspace();
    const product = await create(offline.api, owner.secretKey);
    expectError(await aiGenerate(offline.api, stranger.secretKey, product.id), 404, 'RESOURCE_NOT_FOUND');
    expectError(await aiGenerate(offline.api, owner.liveSecretKey, product.id), 404, 'RESOURCE_NOT_FOUND');
    expectError(await aiGenerate(offline.api, owner.secretKey, 'prod_01J00000000000000000000000'), 404, 'RESOURCE_NOT_FOUND');
    expect(await get(offline.api, owner.secretKey, product.id)).toEqual(product);
    expect(await workflowExists(product.id)).toBe(false);
  });

  it('refuses a publishable key with 403 and starts nothing', async () => {
    const ws = await ctx.createWorkspace();
    const product = await create(offline.api, ws.secretKey);
    expectError(await aiGenerate(offline.api, ws.publishableKey, product.id), 403, 'FORBIDDEN');
    const res = await http(offline.api.baseUrl, 'POST', PRODUCTS, { key: ws.publishableKey, body: { ...body, aiGenerate: true } });
    expectError(res, 403, 'FORBIDDEN');
    expect(await get(offline.api, ws.secretKey, product.id)).toEqual(product);
    expect(await workflowExists(product.id)).toBe(false);
  });
});
