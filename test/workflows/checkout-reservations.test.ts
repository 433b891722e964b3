import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { QueryTypes } from 'sequelize';
import { createActivities } from '../../activities';
import { Account, CheckoutSession, type CheckoutLineItem } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { settleInvoiceOfCompletedSession } from '../../domain/invoices/settle';
import { completeCheckoutSession } from '../../domain/checkout/transitions';
import { moveStock } from '../../domain/inventory/stock';
import { createStarters } from '../../domain/workflow-starters';
import { startRecordedNow } from '../../domain/workflow-starts';
import { loadConfig, requireEncryptionKey } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import { AppError } from '../../lib/errors';
import { createLogger } from '../../lib/logger';
import type { checkoutSession } from '../../workflows/checkout-session';
import { workflowIds } from '../../workflows/messages';
import { insertCheckoutSessionRow, lineOf, type CheckoutOverrides } from '../fixtures/checkout';
import { appliedSteps, insertCappedDiscount, insertSellableProduct } from '../fixtures/fulfillment';
import { enableFulfillment, insertVariant, insertWarehouse } from '../fixtures/inventory';
import { newTenant } from '../fixtures/workspaces';
import { createTestContext, type TestContext } from '../helpers/context';
import { expectLogMatchesRow } from '../helpers/inventory';
import { useTimeSkippingWorker } from '../helpers/time-skipping';
import { testActivityDeps } from '../helpers/worker';

const config = loadConfig(process.env);
const box = createCryptoBox(requireEncryptionKey(config));
const logger = createLogger('silent', 'checkout-reservations-test');

let ctx: TestContext;
let activities: ReturnType<typeof createActivities>;

beforeAll(async () => {
  ctx = await createTestContext();
  activities = createActivities(testActivityDeps(ctx.sequelize, { config, box }));
});
afterAll(() => ctx.close());

type Handle = WorkflowHandle<typeof checkoutSession>;

interface Stocked {
  tenant: Tenant;
  productId: string;
  variantId: string;
  warehouseId: string;
}

/** A workspace with the module on, one warehouse and a physical product with one variant holding `stock` units. */
async function stocked(stock: number): Promise<Stocked> {
  const tenant = await newTenant(ctx);
  await enableFulfillment(tenant);
  const warehouse = await insertWarehouse(tenant);
  const product = await insertSellableProduct(ctx.sequelize, tenant, { type: 'physical' });
  const variant = await insertVariant(tenant, product.id);
  await ctx.sequelize.transaction((tx) =>
    moveStock(tx, tenant, { variantId: variant.id, warehouseId: warehouse.id, kind: 'adjust', reason: 'initial_stock', quantity: stock, actor: { type: 'api_key', id: 'key_test' } }),
  );
  return { tenant, productId: product.id, variantId: variant.id, warehouseId: warehouse.id };
}

const variantLine = (s: Stocked, quantity: number, lineKey = '1'): CheckoutLineItem => ({ ...lineOf(s.productId, 1500, quantity, lineKey), variantId: s.variantId, variantName: 'Blue / M' });

async function balances(s: Stocked) {
  const [row] = await ctx.sequelize.query<{ available: string; reserved: string }>('SELECT available, reserved FROM stock_levels WHERE variant_id = :variantId AND warehouse_id = :warehouseId', {
    type: QueryTypes.SELECT,
    replacements: { variantId: s.variantId, warehouseId: s.warehouseId },
  });
  return { available: Number(row!.available), reserved: Number(row!.reserved) };
}

async function movements(s: Stocked) {
  return ctx.sequelize.query<{ kind: string; reference: string | null; actorId: string; delta: string; reservedDelta: string }>(
    `SELECT kind, reference, actor_id AS "actorId", delta, reserved_delta AS "reservedDelta" FROM stock_movements WHERE variant_id = :variantId ORDER BY seq`,
    { type: QueryTypes.SELECT, replacements: { variantId: s.variantId } },
  );
}

describe('checkout-session workflow with reservations (time-skipping server, real activities and database)', () => {
  const timeSkipping = useTimeSkippingWorker();
  const run = <R>(fn: (env: TestWorkflowEnvironment, taskQueue: string) => Promise<R>) => timeSkipping.run(fn, { activities });
  /** Sessions are created on the server's clock, which runs ahead of the wall clock as earlier tests skip time. */
  const insertSession = async (tenant: Tenant, overrides: CheckoutOverrides = {}) =>
    insertCheckoutSessionRow(ctx.sequelize, tenant, { now: new Date(await timeSkipping.env.currentTimeMs()), ...overrides });

  function flow(env: TestWorkflowEnvironment, taskQueue: string) {
    const starters = createStarters(env.client, { taskQueue, searchAttributes: false });
    const deps = { sequelize: ctx.sequelize, starters, logger };
    return {
      async start(sessionId: string): Promise<Handle> {
        await startRecordedNow(deps, workflowIds.checkoutSession(sessionId));
        return env.client.workflow.getHandle<typeof checkoutSession>(workflowIds.checkoutSession(sessionId));
      },
      confirm: (tenant: Tenant, sessionId: string) => completeCheckoutSession(deps, tenant, sessionId, { from: 'pending_review', settleSource: settleInvoiceOfCompletedSession }),
    };
  }

  it('releases every hold at the sessions’ deadline: 10 sessions take all 10 in stock, the 11th is refused, and after expiry available is 10 again — the module switched off meanwhile', async () => {
    const s = await stocked(10);
    const sessions: CheckoutSession[] = [];
    for (let i = 0; i < 10; i += 1) sessions.push(await insertSession(s.tenant, { lineItems: [variantLine(s, 1)] }));
    const refused = await insertSession(s.tenant, { lineItems: [variantLine(s, 1)] }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('INSUFFICIENT_STOCK');
    expect(await CheckoutSession.count({ where: { accountId: s.tenant.accountId } })).toBe(10);
    expect(await balances(s)).toEqual({ available: 0, reserved: 10 });
    // Holds made while the module was on are released after it is switched off.
    await Account.update({ fulfillmentEnabled: false }, { where: { id: s.tenant.accountId } });

    const outcomes = await run(async (env, taskQueue) => {
      const handles = await Promise.all(sessions.map((session) => flow(env, taskQueue).start(session.id)));
      // One result at a time: concurrent result() calls on the time-skipping client leave a time-skipping lock
      // behind. The ten deadlines lie moments apart, so the first skip expires them all.
      const results: string[] = [];
      for (const handle of handles) results.push(await handle.result());
      return results;
    });

    expect(outcomes).toEqual(Array<string>(10).fill('expired'));
    expect(await balances(s)).toEqual({ available: 10, reserved: 0 });
    const log = await movements(s);
    expect(log.map((m) => m.kind)).toEqual(['adjust', ...Array<string>(10).fill('reserve'), ...Array<string>(10).fill('release')]);
    const releases = log.filter((m) => m.kind === 'release');
    expect(releases.map((m) => m.reference).sort()).toEqual(sessions.map((session) => session.id).sort());
    for (const release of releases) expect(release).toMatchObject({ actorId: workflowIds.checkoutSession(release.reference!), delta: '1', reservedDelta: '-1' });
    await expectLogMatchesRow(ctx.sequelize, s.variantId, s.warehouseId);
  });

  it('commits the hold as the `stock` step on completion, after the discount and before the deliveries: reserved back to 0, available stays reduced', async () => {
    const s = await stocked(10);
    const ebook = await insertSellableProduct(ctx.sequelize, s.tenant, { files: ['book.pdf'] });
    const discount = await insertCappedDiscount(s.tenant);
    const lineItems = [variantLine(s, 3, '1'), lineOf(ebook.id, 1000, 1, '2')];
    const subtotal = lineItems.reduce((sum, line) => sum + line.amount, 0);
    const session = await insertSession(s.tenant, {
      status: 'pending_review',
      lineItems,
      subtotal,
      amount: subtotal - 100,
      discount: { id: discount.id, code: discount.code, amount: 100 },
      shippingAddress: { line1: '1 Main St', city: 'Springfield', country: 'US' },
    });
    expect(await balances(s)).toEqual({ available: 7, reserved: 3 });

    const outcome = await run(async (env, taskQueue) => {
      const checkout = flow(env, taskQueue);
      const handle = await checkout.start(session.id);
      await checkout.confirm(s.tenant, session.id);
      return handle.result();
    });

    expect(outcome).toBe('fulfilled');
    expect(await appliedSteps(ctx.sequelize, session.id)).toEqual(['discount', 'stock', 'delivery:1', 'delivery:2', 'balance', 'event:checkout.completed', 'email:receipt', 'fulfilled']);
    expect(await balances(s)).toEqual({ available: 7, reserved: 0 });
    expect((await movements(s)).map((m) => [m.kind, m.reference, m.actorId, m.delta, m.reservedDelta])).toEqual([
      ['adjust', null, 'key_test', '10', '0'],
      ['reserve', session.id, workflowIds.checkoutSession(session.id), '-3', '3'],
      ['commit', session.id, workflowIds.checkoutSession(session.id), '0', '-3'],
    ]);
    const [step] = await ctx.sequelize.query<{ result: unknown }>(`SELECT result FROM checkout_fulfillment_steps WHERE checkout_session_id = :id AND step = 'stock'`, {
      type: QueryTypes.SELECT,
      replacements: { id: session.id },
    });
    expect(step!.result).toEqual({ committed: [{ variantId: s.variantId, warehouseId: s.warehouseId, quantity: 3 }] });
    await expectLogMatchesRow(ctx.sequelize, s.variantId, s.warehouseId);
  });
});
