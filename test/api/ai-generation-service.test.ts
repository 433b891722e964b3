import { QueryTypes, type Transaction } from 'sequelize';
import { httpStatusOf } from '../../api/errors';
import { createAiGenerationService, type AiGenerationService } from '../../domain/products/ai-generation';
import { createStarters } from '../../domain/workflow-starters';
import { AppError } from '../../lib/errors';
import type { Plan } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { createLogger } from '../../lib/logger';
import { PLAN_LIMITS } from '../../lib/plan-limits';
import { ACCOUNT_ID, workflowIds } from '../../workflows/messages';
import { countAiRuns, insertAiRuns } from '../fixtures/ai-runs';
import { insertEvent } from '../fixtures/events';
import { insertProduct, readProduct } from '../fixtures/products';
import { newTenant } from '../fixtures/workspaces';
import { createTestContext, type TestContext } from '../helpers/context';

let ctx: TestContext;
let service: AiGenerationService;
const taskQueue = `ai-service-${Date.now()}`;

beforeAll(async () => {
  ctx = await createTestContext();
  // No worker polls this queue: started workflows stay open, which is what start() is checked against.
  service = createAiGenerationService({ sequelize: ctx.sequelize, starters: createStarters(ctx.temporal, { taskQueue }), logger: createLogger('silent', 'ai-service-test') });
});
afterAll(() => ctx.close());

/** As the products service calls it: inside a transaction that holds the product row lock. */
function reserve(tenant: Tenant, productId: string, plan: Plan = 'free', beforeReserve?: (tx: Transaction) => Promise<void>) {
  return ctx.sequelize.transaction(async (tx) => {
    await ctx.sequelize.query(`SELECT id FROM products WHERE id = :productId FOR UPDATE`, { replacements: { productId }, transaction: tx });
    await beforeReserve?.(tx);
    return service.reserve(tx, tenant, plan, productId);
  });
}

async function quotaError(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe('QUOTA_EXCEEDED');
  expect(httpStatusOf(err as AppError)).toBe(403);
  return err as AppError;
}

describe('AI generation service: reserve()', () => {
  it('records a run, sets ai_status generating and ai_generated, and bumps updated_at', async () => {
    const tenant = await newTenant(ctx);
    const id = await insertProduct(ctx.sequelize, tenant);
    const before = await readProduct(ctx.sequelize, id);

    expect(await reserve(tenant, id)).toBe('reserved');

    const after = await readProduct(ctx.sequelize, id);
    expect({ status: after.ai_status, generated: after.ai_generated }).toEqual({ status: 'generating', generated: true });
    expect(after.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
    expect(await countAiRuns(ctx.sequelize, tenant)).toBe(1);
  });

  it('answers already_running while a run is in flight, recording nothing more', async () => {
    const tenant = await newTenant(ctx);
    const id = await insertProduct(ctx.sequelize, tenant);
    expect(await reserve(tenant, id)).toBe('reserved');
    expect(await reserve(tenant, id)).toBe('already_running');
    expect(await countAiRuns(ctx.sequelize, tenant)).toBe(1);
  });

  it('reserves again once the previous run completed or failed', async () => {
    const tenant = await newTenant(ctx);
    for (const status of ['completed', 'failed']) {
      const id = await insertProduct(ctx.sequelize, tenant, { aiStatus: status });
      expect(await reserve(tenant, id)).toBe('reserved');
    }
    expect(await countAiRuns(ctx.sequelize, tenant)).toBe(2);
  });

  it('gives 403 QUOTA_EXCEEDED at the monthly cap and writes nothing', async () => {
    const tenant = await newTenant(ctx, 'free');
    const used = await insertProduct(ctx.sequelize, tenant, { aiStatus: 'completed' });
    await insertAiRuns(ctx.sequelize, tenant, used, PLAN_LIMITS.free.aiGenerationsPerMonth);
    const id = await insertProduct(ctx.sequelize, tenant);
    const before = await readProduct(ctx.sequelize, id);

    const err = await quotaError(reserve(tenant, id, 'free'));
    expect(err.message).toMatch(/10/);

    expect(await readProduct(ctx.sequelize, id)).toEqual(before);
    expect(await countAiRuns(ctx.sequelize, tenant)).toBe(PLAN_LIMITS.free.aiGenerationsPerMonth);
  });

  it('caps by the plan passed in', async () => {
    const tenant = await newTenant(ctx, 'starter');
    const used = await insertProduct(ctx.sequelize, tenant, { aiStatus: 'completed' });
    await insertAiRuns(ctx.sequelize, tenant, used, PLAN_LIMITS.free.aiGenerationsPerMonth);
    const id = await insertProduct(ctx.sequelize, tenant);
    expect(await reserve(tenant, id, 'starter')).toBe('reserved');
    await insertAiRuns(ctx.sequelize, tenant, used, PLAN_LIMITS.starter.aiGenerationsPerMonth - PLAN_LIMITS.free.aiGenerationsPerMonth - 1);
    await quotaError(reserve(tenant, await insertProduct(ctx.sequelize, tenant), 'starter'));
  });

  it('counts only this calendar month (UTC)', async () => {
    const tenant = await newTenant(ctx);
    const used = await insertProduct(ctx.sequelize, tenant, { aiStatus: 'completed' });
    await insertAiRuns(ctx.sequelize, tenant, used, PLAN_LIMITS.free.aiGenerationsPerMonth, true);
    await insertAiRuns(ctx.sequelize, tenant, used, PLAN_LIMITS.free.aiGenerationsPerMonth - 1);
    expect(await reserve(tenant, await insertProduct(ctx.sequelize, tenant))).toBe('reserved');
    await quotaError(reserve(tenant, await insertProduct(ctx.sequelize, tenant)));
  });

  it('counts per workspace and environment: live runs and other workspaces do not use test quota', async () => {
    const tenant = await newTenant(ctx);
    const live: Tenant = { ...tenant, environment: 'live' };
    const other = await newTenant(ctx);
    const limit = PLAN_LIMITS.free.aiGenerationsPerMonth;
    await insertAiRuns(ctx.sequelize, live, await insertProduct(ctx.sequelize, live, { aiStatus: 'completed' }), limit);
    await insertAiRuns(ctx.sequelize, other, await insertProduct(ctx.sequelize, other, { aiStatus: 'completed' }), limit);

    expect(await reserve(tenant, await insertProduct(ctx.sequelize, tenant))).toBe('reserved');
    await quotaError(reserve(live, await insertProduct(ctx.sequelize, live)));
    await quotaError(reserve(other, await insertProduct(ctx.sequelize, other)));
  });

  it('answers 404 for a product of another workspace or environment', async () => {
    const tenant = await newTenant(ctx);
    const id = await insertProduct(ctx.sequelize, tenant);
    const stranger = await newTenant(ctx);
    for (const who of [stranger, { ...tenant, environment: 'live' as const }]) {
      const err = await reserve(who, id).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
      expect(httpStatusOf(err as AppError)).toBe(404);
    }
    expect((await readProduct(ctx.sequelize, id)).ai_status).toBeNull();
  });

  it('never exceeds the cap under concurrent reservations', async () => {
    const tenant = await newTenant(ctx);
    const limit = PLAN_LIMITS.free.aiGenerationsPerMonth;
    await insertAiRuns(ctx.sequelize, tenant, await insertProduct(ctx.sequelize, tenant, { aiStatus: 'completed' }), limit - 2);
    // Four, below the test context's pool of five connections, since every transaction waits at the barrier.
    const ids = await Promise.all(Array.from({ length: 4 }, () => insertProduct(ctx.sequelize, tenant)));

    // Every transaction holds its product lock before any of them counts, so the counts really race.
    let arrived = 0;
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => (release = resolve));
    const results = await Promise.allSettled(
      ids.map((id) =>
        reserve(tenant, id, 'free', async () => {
          arrived += 1;
          if (arrived === ids.length) release();
          await barrier;
        }),
      ),
    );

    expect(results.filter((r) => r.status === 'fulfilled' && r.value === 'reserved')).toHaveLength(2);
    for (const r of results.filter((r) => r.status === 'rejected')) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'QUOTA_EXCEEDED' });
    expect(await countAiRuns(ctx.sequelize, tenant)).toBe(limit);
    const statuses = await Promise.all(ids.map(async (id) => (await readProduct(ctx.sequelize, id)).ai_status));
    expect(statuses.filter((s) => s === 'generating')).toHaveLength(2);
  });

  it('does not deadlock with transactions that already reference the account (foreign-key key-share locks)', async () => {
    const tenant = await newTenant(ctx, 'pro');
    const ids = await Promise.all([0, 1].map(() => insertProduct(ctx.sequelize, tenant)));
    let arrived = 0;
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => (release = resolve));
    // As a create does on the uncapped plan: insert a row referencing the account, then reserve.
    const results = await Promise.allSettled(
      ids.map((id) =>
        reserve(tenant, id, 'pro', async (tx) => {
          await insertEvent(ctx.sequelize, tenant, { type: 'test.event', transaction: tx });
          arrived += 1;
          if (arrived === ids.length) release();
          await barrier;
        }),
      ),
    );
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason)))).toEqual(['reserved', 'reserved']);
  });
});

const recordedStarts = (productId: string) =>
  ctx.sequelize.query<{ workflow_type: string; args: unknown; started_at: Date | null }>(
    `SELECT workflow_type, args, started_at FROM workflow_starts WHERE workflow_id = :workflowId`,
    { replacements: { workflowId: workflowIds.aiGeneration(productId) }, type: QueryTypes.SELECT },
  );

describe('AI generation service: start()', () => {
  it('starts what reserve recorded in its transaction: ai-generation:<productId> tagged with AccountId, once', async () => {
    const tenant = await newTenant(ctx);
    const id = await insertProduct(ctx.sequelize, tenant);

    expect(await reserve(tenant, id)).toBe('reserved');
    expect(await recordedStarts(id)).toEqual([{ workflow_type: 'aiGeneration', args: { ...tenant, productId: id }, started_at: null }]);

    await service.start({ ...tenant, productId: id });
    const handle = ctx.temporal.workflow.getHandle(workflowIds.aiGeneration(id));
    const first = await handle.describe();
    expect(first.workflowId).toBe(`ai-generation:${id}`);
    expect({ type: first.type, taskQueue: first.taskQueue, status: first.status.name }).toEqual({ type: 'aiGeneration', taskQueue, status: 'RUNNING' });
    expect(first.typedSearchAttributes.get(ACCOUNT_ID)).toBe(tenant.accountId);
    expect((await recordedStarts(id))[0]!.started_at).toBeInstanceOf(Date);

    // Started is started: a repeated start() finds nothing pending and sends nothing more.
    await service.start({ ...tenant, productId: id });
    const history = await handle.fetchHistory();
    expect(history.events!.filter((e) => e.workflowExecutionSignaledEventAttributes)).toHaveLength(1);
    await handle.terminate('test');
  });

  it('records no start for a reservation that rolls back, nor for already_running', async () => {
    const tenant = await newTenant(ctx);
    const id = await insertProduct(ctx.sequelize, tenant);
    await expect(
      ctx.sequelize.transaction(async (tx) => {
        await service.reserve(tx, tenant, 'free', id);
        throw new Error('the request failed after reserving');
      }),
    ).rejects.toThrow('the request failed');
    expect(await recordedStarts(id)).toEqual([]);

    const running = await insertProduct(ctx.sequelize, tenant, { aiStatus: 'generating' });
    expect(await reserve(tenant, running)).toBe('already_running');
    expect(await recordedStarts(running)).toEqual([]);
  });
});
