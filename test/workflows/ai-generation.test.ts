import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { QueryTypes } from 'sequelize';
import { createActivities } from '../../activities';
import { createAiGenerationService, type AiGenerationService } from '../../domain/products/ai-generation';
import { createStarters, type Starters } from '../../domain/workflow-starters';
import { createLogger } from '../../lib/logger';
import type { Tenant } from '../../db/tenancy';
import { OfflineTextGenerator } from '../../lib/ai/offline';
import { OpenAiCompatibleGenerator } from '../../lib/ai/openai-compatible';
import { AI_PROVIDER_MAX_ATTEMPTS } from '../../workflows/ai-generation';
import { workflowIds, type AiGenerationOutcome, type AiGenerationTarget } from '../../workflows/messages';
import { countAiRuns, insertAiRuns } from '../fixtures/ai-runs';
import { insertProduct, readProduct } from '../fixtures/products';
import { newTenant } from '../fixtures/workspaces';
import { copyJson, startChatCompletionsServer, type ChatCompletionsServer } from '../helpers/chat-completions-server';
import { createTestContext, type TestContext } from '../helpers/context';
import { plainHistory, testDataConverter } from '../helpers/temporal-codec';
import { createTimeSkippingEnv } from '../helpers/temporal-env';
import { testActivityDeps } from '../helpers/worker';

let ctx: TestContext;
let env: TestWorkflowEnvironment;
let provider: ChatCompletionsServer;
let providerStarters: Starters;
let providerService: AiGenerationService;
let offlineService: AiGenerationService;
/** Runs after the real applyProductCopy in the provider worker: lets a test act right after the write. */
let afterApply: ((input: AiGenerationTarget) => Promise<void>) | undefined;
const workers: { shutdown(): void; running: Promise<void> }[] = [];
const suffix = Date.now().toString(36);

async function startWorker(taskQueue: string, activities: ReturnType<typeof createActivities>) {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
    activities,
    dataConverter: testDataConverter(),
  });
  workers.push({ shutdown: () => worker.shutdown(), running: worker.run() });
}

beforeAll(async () => {
  ctx = await createTestContext();
  env = await createTimeSkippingEnv();
  provider = await startChatCompletionsServer();
  const viaProvider = createActivities(
    testActivityDeps(ctx.sequelize, {
      textGenerator: new OpenAiCompatibleGenerator({ baseURL: provider.baseURL, apiKey: 'sk-wf', model: 'wf-model', timeoutMs: 10_000 }),
    }),
  );
  await startWorker(`ai-provider-${suffix}`, {
    ...viaProvider,
    async applyProductCopy(input) {
      const written = await viaProvider.applyProductCopy(input);
      await afterApply?.(input);
      return written;
    },
  });
  await startWorker(`ai-offline-${suffix}`, createActivities(testActivityDeps(ctx.sequelize, { textGenerator: new OfflineTextGenerator() })));
  // The time-skipping server has no custom search attributes.
  providerStarters = createStarters(env.client, { taskQueue: `ai-provider-${suffix}`, searchAttributes: false });
  const logger = createLogger('silent', 'ai-workflow-test');
  providerService = createAiGenerationService({ sequelize: ctx.sequelize, starters: providerStarters, logger });
  offlineService = createAiGenerationService({
    sequelize: ctx.sequelize,
    starters: createStarters(env.client, { taskQueue: `ai-offline-${suffix}`, searchAttributes: false }),
    logger,
  });
}, 120_000);

afterAll(async () => {
  for (const w of workers) w.shutdown();
  await Promise.all(workers.map((w) => w.running));
  await env?.teardown();
  await provider?.close();
  await ctx?.close();
});

beforeEach(() => {
  provider.requests.length = 0;
  afterApply = undefined;
});

/** What the products endpoint does: reserve under the product lock, commit, then start. */
async function trigger(service: AiGenerationService, who: Tenant, productId: string) {
  const reservation = await ctx.sequelize.transaction(async (tx) => {
    await ctx.sequelize.query(`SELECT id FROM products WHERE id = :productId FOR UPDATE`, { replacements: { productId }, transaction: tx });
    return service.reserve(tx, who, 'pro', productId);
  });
  await service.start({ ...who, productId });
  return reservation;
}

async function generate(service: AiGenerationService, who: Tenant, productId: string, record?: string): Promise<AiGenerationOutcome[]> {
  expect(await trigger(service, who, productId)).toBe('reserved');
  const handle = env.client.workflow.getHandle<() => Promise<AiGenerationOutcome[]>>(workflowIds.aiGeneration(productId));
  const result = await handle.result();
  if (record && process.env.RECORD_HISTORIES === '1') {
    const history = await plainHistory(handle);
    await writeFile(path.join(__dirname, `../replay/histories/${record}.json`), JSON.stringify(history, null, 2));
  }
  return result;
}

describe('ai-generation workflow (time-skipping Temporal, real activities, real DB, local provider over HTTP)', () => {
  it('retries a failing provider with backoff: fails twice, then succeeds → completed after 3 calls', async () => {
    provider.reply((n) => (n <= 2 ? { status: 500, error: 'overloaded' } : { content: copyJson({ featureBullets: ['Fast', 'Reliable'] }) }));
    const who = await newTenant(ctx);
    const id = await insertProduct(ctx.sequelize, who);
    const before = await readProduct(ctx.sequelize, id);

    expect(await generate(providerService, who, id, 'ai-generation-retried')).toEqual(['completed']);

    expect(provider.requests).toHaveLength(3);
    expect(provider.requests.every((r) => r.body.model === 'wf-model')).toBe(true);
    const after = await readProduct(ctx.sequelize, id);
    expect(after).toMatchObject({
      ai_status: 'completed',
      ai_generated: true,
      description: 'A **great** product for testing, written by the provider.',
      // Other metadata keys survive; the three AI keys are (over)written.
      metadata: { sku: 'TR-1', seoTitle: 'Great Product | Test', metaDescription: 'Buy the great product for testing.', featureBullets: 'Fast\nReliable' },
      thumbnail: before.thumbnail,
      cover_images: before.cover_images,
    });
    expect(after.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
  });

  it('gives up after a bounded number of attempts on a provider that keeps failing → failed, product copy untouched', async () => {
    provider.reply(() => ({ status: 503, error: 'down' }));
    const who = await newTenant(ctx);
    const id = await insertProduct(ctx.sequelize, who);
    const before = await readProduct(ctx.sequelize, id);

    expect(await generate(providerService, who, id, 'ai-generation-failed')).toEqual(['failed']);

    expect(provider.requests).toHaveLength(AI_PROVIDER_MAX_ATTEMPTS);
    expect(AI_PROVIDER_MAX_ATTEMPTS).toBe(5);
    const after = await readProduct(ctx.sequelize, id);
    expect(after).toMatchObject({ ai_status: 'failed', description: before.description, metadata: before.metadata, thumbnail: before.thumbnail });
  });

  it('does not retry a permanent provider error (401) → failed after 1 call', async () => {
    provider.reply(() => ({ status: 401, error: 'bad key' }));
    const who = await newTenant(ctx);
    const id = await insertProduct(ctx.sequelize, who);
    expect(await generate(providerService, who, id)).toEqual(['failed']);
    expect(provider.requests).toHaveLength(1);
    expect((await readProduct(ctx.sequelize, id)).ai_status).toBe('failed');
  });

  it('retries invalid model output like any provider error', async () => {
    provider.reply((n) => (n === 1 ? { content: '{"description": "half' } : { content: copyJson() }));
    const who = await newTenant(ctx);
    const id = await insertProduct(ctx.sequelize, who);
    expect(await generate(providerService, who, id)).toEqual(['completed']);
    expect(provider.requests).toHaveLength(2);
  });

  it('completes with the built-in offline generator, from the product fields', async () => {
    const who = await newTenant(ctx);
    const id = await insertProduct(ctx.sequelize, who);
    expect(await generate(offlineService, who, id)).toEqual(['completed']);
    const after = await readProduct(ctx.sequelize, id);
    expect(after.ai_status).toBe('completed');
    expect(after.description).toContain('**Trail Runner** by Acme is a physical product available for USD 120.');
    expect(after.description).toContain('Light shoe for trails.');
    expect(after.metadata).toMatchObject({ sku: 'TR-1', seoTitle: 'Trail Runner | Acme' });
    expect(after.cover_images).toEqual(['https://cdn.example/a.png', 'https://cdn.example/b.png']);
    expect(provider.requests).toHaveLength(0);
  });

  it('serves a run reserved right after the previous one was written, while its workflow is still open', async () => {
    provider.reply((n) => ({ content: copyJson({ seoTitle: `Title ${n}` }) }));
    const who = await newTenant(ctx);
    const id = await insertProduct(ctx.sequelize, who);
    let reservedAgain = false;
    afterApply = async (input) => {
      if (input.productId !== id || reservedAgain) return;
      reservedAgain = true;
      // A merchant request lands between the write and the workflow closing: start() finds it still open.
      expect(await trigger(providerService, who, id)).toBe('reserved');
    };

    expect(await generate(providerService, who, id, 'ai-generation-rerun')).toEqual(['completed', 'completed']);
    expect(provider.requests).toHaveLength(2);
    const after = await readProduct(ctx.sequelize, id);
    expect(after).toMatchObject({ ai_status: 'completed', metadata: { seoTitle: 'Title 2' } });
    expect(await countAiRuns(ctx.sequelize, who)).toBe(2);
  });

  it('a request while a run is in flight generates nothing extra', async () => {
    const who = await newTenant(ctx);
    const id = await insertProduct(ctx.sequelize, who);
    provider.reply(async (n) => {
      if (n === 1) {
        // A second request during the run: reserve says already_running and records no start.
        expect(await trigger(providerService, who, id)).toBe('already_running');
      }
      return { content: copyJson() };
    });
    expect(await generate(providerService, who, id)).toEqual(['completed']);
    expect(provider.requests).toHaveLength(1);
    expect(await countAiRuns(ctx.sequelize, who)).toBe(1);
  });

  it('does nothing when the product is not generating', async () => {
    const who = await newTenant(ctx);
    const id = await insertProduct(ctx.sequelize, who, { aiStatus: 'completed' });
    await providerStarters.aiGeneration({ ...who, productId: id });
    expect(await env.client.workflow.getHandle(workflowIds.aiGeneration(id)).result()).toEqual(['skipped']);
    expect(provider.requests).toHaveLength(0);
  });

  it('marks the run failed when an operator cancels the workflow', async () => {
    const who = await newTenant(ctx);
    const id = await insertProduct(ctx.sequelize, who);
    let called!: () => void;
    const inFlight = new Promise<void>((resolve) => (called = resolve));
    provider.reply(() => {
      called();
      return { content: copyJson(), delayMs: 1_500 };
    });
    expect(await trigger(providerService, who, id)).toBe('reserved');
    const handle = env.client.workflow.getHandle(workflowIds.aiGeneration(id));
    await inFlight;
    await handle.cancel();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await readProduct(ctx.sequelize, id)).ai_status).toBe('failed');
  });
});

describe('ai-generation write activities are idempotent', () => {
  const copy = { description: 'New copy', seoTitle: 'T', metaDescription: 'M', featureBullets: ['a', 'b'] };
  let activities: ReturnType<typeof createActivities>;
  beforeAll(() => {
    activities = createActivities(testActivityDeps(ctx.sequelize, { textGenerator: new OfflineTextGenerator() }));
  });

  async function reserved(): Promise<AiGenerationTarget & { run: number }> {
    const who = await newTenant(ctx);
    const id = await insertProduct(ctx.sequelize, who, { aiStatus: 'generating' });
    await insertAiRuns(ctx.sequelize, who, id, 1);
    const pending = await activities.loadAiGenerationRun({ ...who, productId: id });
    expect(pending?.run).toBe(1);
    return { ...who, productId: id, run: 1 };
  }

  it('applyProductCopy: a repeat gives the same product state; a stale run or a foreign tenant writes nothing', async () => {
    const target = await reserved();
    expect(await activities.applyProductCopy({ ...target, copy })).toBe(true);
    const once = await readProduct(ctx.sequelize, target.productId);
    expect(await activities.applyProductCopy({ ...target, copy })).toBe(false);
    expect(await readProduct(ctx.sequelize, target.productId)).toEqual(once);
    expect(once).toMatchObject({ description: 'New copy', ai_status: 'completed', metadata: { sku: 'TR-1', featureBullets: 'a\nb' } });

    const next = await reserved();
    expect(await activities.applyProductCopy({ ...next, run: next.run - 1, copy })).toBe(false);
    expect(await activities.applyProductCopy({ ...next, environment: 'live', copy })).toBe(false);
    expect((await readProduct(ctx.sequelize, next.productId)).ai_status).toBe('generating');
  });

  it('emits service.product.updated.v1 with the product object once per ended run, not on repeats', async () => {
    const target = await reserved();
    await activities.applyProductCopy({ ...target, copy });
    await activities.applyProductCopy({ ...target, copy });
    const failed = await reserved();
    await activities.markAiGenerationFailed(failed);
    await activities.markAiGenerationFailed(failed);

    const events = await ctx.sequelize.query<{ type: string; data: Record<string, unknown> }>(
      `SELECT type, data FROM events WHERE account_id IN (:accounts) ORDER BY id`,
      { replacements: { accounts: [target.accountId, failed.accountId] }, type: QueryTypes.SELECT },
    );
    expect(events).toEqual([
      {
        type: 'service.product.updated.v1',
        data: expect.objectContaining({ id: target.productId, aiStatus: 'completed', aiGenerated: true, description: 'New copy', metadata: expect.objectContaining({ seoTitle: 'T' }) }),
      },
      { type: 'service.product.updated.v1', data: expect.objectContaining({ id: failed.productId, aiStatus: 'failed' }) },
    ]);
  });

  it('keeps stored metadata within the products API limits (50 keys, 500-character values)', async () => {
    const target = await reserved();
    const others = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'v']));
    await ctx.sequelize.query(`UPDATE products SET metadata = CAST(:m AS jsonb) WHERE id = :id`, {
      replacements: { id: target.productId, m: JSON.stringify(others) },
    });
    const bullets = Array.from({ length: 10 }, (_, i) => `${i} ${'b'.repeat(150)}`);
    expect(await activities.applyProductCopy({ ...target, copy: { ...copy, featureBullets: bullets } })).toBe(true);

    const { metadata } = await readProduct(ctx.sequelize, target.productId);
    expect(Object.keys(metadata)).toHaveLength(50);
    // One slot was free: the first AI key takes it; the merchant's own keys all stay.
    expect(metadata).toEqual({ ...others, seoTitle: 'T' });

    const next = await reserved();
    expect(await activities.applyProductCopy({ ...next, copy: { ...copy, featureBullets: bullets } })).toBe(true);
    const stored = (await readProduct(ctx.sequelize, next.productId)).metadata.featureBullets!;
    expect(stored.length).toBeLessThanOrEqual(500);
    expect(stored.split('\n')).toEqual(bullets.slice(0, 3));
  });

  it('markAiGenerationFailed: only a current generating run is marked; repeats change nothing', async () => {
    const target = await reserved();
    expect(await activities.markAiGenerationFailed(target)).toBe(true);
    const once = await readProduct(ctx.sequelize, target.productId);
    expect(once.ai_status).toBe('failed');
    expect(await activities.markAiGenerationFailed(target)).toBe(false);
    expect(await activities.applyProductCopy({ ...target, copy })).toBe(false);
    expect(await readProduct(ctx.sequelize, target.productId)).toEqual(once);
  });
});
