import { mkdtempSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Shipment, ShipmentEvent } from '../../db/models';
import { createActivities } from '../../activities';
import { createStarters } from '../../domain/workflow-starters';
import { startRecordedNow } from '../../domain/workflow-starts';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { localWaybill } from '../../lib/shipping/local-partner';
import type { shipment } from '../../workflows/shipment';
import { workflowIds } from '../../workflows/messages';
import { insertOrigin, insertShipment } from '../fixtures/shipping';
import { startAggregatorServer } from '../helpers/biteship-server';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { switchFulfillment } from '../helpers/inventory';
import { useTimeSkippingWorker } from '../helpers/time-skipping';
import { testActivityDeps } from '../helpers/worker';
import { plainHistory } from '../helpers/temporal-codec';

const STORAGE = mkdtempSync(path.join(tmpdir(), 'shipment-workflow-'));
const config = loadConfig({ ...process.env, FILE_STORAGE_DIR: STORAGE, SHIPPING_LOCAL_SCHEDULE: '30s,2m,5m,15m' });
const logger = createLogger('silent', 'shipment-workflow-test');
const SCHEDULE_MS = [30_000, 120_000, 300_000, 900_000];

let ctx: TestContext;
let api: TestApi;
let activities: ReturnType<typeof createActivities>;

beforeAll(async () => {
  ctx = await createTestContext();
  api = await ctx.startApi({ FILE_STORAGE_DIR: STORAGE });
  activities = createActivities(testActivityDeps(ctx.sequelize, { config }));
});
afterAll(async () => {
  await ctx.close();
  await rm(STORAGE, { recursive: true, force: true });
});

type Handle = WorkflowHandle<typeof shipment>;

async function recordHistory(handle: Handle, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  await writeFile(path.join(__dirname, '../replay/histories', `${name}.json`), JSON.stringify(await plainHistory(handle), null, 2));
}

/** The durable start the shipment's creation recorded, made as the API (or the relay) makes it. */
async function start(env: TestWorkflowEnvironment, taskQueue: string, shipmentId: string): Promise<Handle> {
  const starters = createStarters(env.client, { taskQueue, searchAttributes: false });
  const workflowId = workflowIds.shipment(shipmentId);
  await startRecordedNow({ sequelize: ctx.sequelize, starters, logger }, workflowId);
  return env.client.workflow.getHandle<typeof shipment>(workflowId);
}

/** The real activities, noting each local move with the workflow clock, and able to hold before one. */
function observed(env: () => TestWorkflowEnvironment, holdBefore?: string) {
  const moves: { partnerStatus: string; status: string; atMs: number }[] = [];
  let reached!: () => void;
  let release!: () => void;
  const atHold = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    moves,
    atHold,
    release,
    activities: {
      ...activities,
      async advanceLocalShipment(input: Parameters<typeof activities.advanceLocalShipment>[0]) {
        if (input.partnerStatus === holdBefore) {
          reached();
          await released;
        }
        const status = await activities.advanceLocalShipment(input);
        moves.push({ partnerStatus: input.partnerStatus, status, atMs: await env().currentTimeMs() });
        return status;
      },
    },
  };
}

describe('shipment workflow (time-skipping server, real activities and database)', () => {
  const timeSkipping = useTimeSkippingWorker();

  it('local partner: books, makes the label, then confirmed → picked up → in transit → delivered on the schedule', async () => {
    const ws = await ctx.createWorkspace();
    await insertOrigin(ws);
    const id = await insertShipment(ctx.sequelize, ws);
    const watch = observed(() => timeSkipping.env);
    const { outcome, startedAt } = await timeSkipping.run(
      async (env, taskQueue) => {
        const startedAt = await env.currentTimeMs();
        const handle = await start(env, taskQueue, id);
        const outcome = await handle.result();
        await recordHistory(handle, 'shipment-local-delivered');
        return { outcome, startedAt };
      },
      { activities: watch.activities },
    );
    expect(outcome).toBe('delivered');
    expect(watch.moves.map((m) => `${m.partnerStatus}→${m.status}`)).toEqual(['confirmed→confirmed', 'picked→picked_up', 'dropping_off→in_transit', 'delivered→delivered']);
    // Each move after the one before, by the schedule fixed at booking (give or take the activities' own moments).
    let expectedAt = startedAt;
    watch.moves.forEach((move, i) => {
      expectedAt += SCHEDULE_MS[i]!;
      expect(move.atMs - expectedAt).toBeGreaterThanOrEqual(0);
      expect(move.atMs - expectedAt).toBeLessThan(10_000);
      expectedAt = move.atMs;
    });
    const row = (await Shipment.findByPk(id))!;
    expect(row).toMatchObject({ status: 'delivered', partner: 'local', waybillId: localWaybill(id), price: 9_000 });
    expect(row.labelKey).not.toBeNull();
    expect((await ShipmentEvent.findAll({ where: { shipmentId: id }, order: [['receivedAt', 'ASC']] })).map((e) => [e.id, e.source, e.outcome])).toEqual([
      [`local:${id}:confirmed`, 'local_partner', 'applied'],
      [`local:${id}:picked`, 'local_partner', 'applied'],
      [`local:${id}:dropping_off`, 'local_partner', 'applied'],
      [`local:${id}:delivered`, 'local_partner', 'applied'],
    ]);
  });

  it('a merchant cancel while confirmed ends the schedule: the next move is ignored and the workflow ends cancelled', async () => {
    const ws = await ctx.createWorkspace();
    await switchFulfillment(api.baseUrl, ws.secretKey, true);
    await insertOrigin(ws);
    const id = await insertShipment(ctx.sequelize, ws);
    const watch = observed(() => timeSkipping.env, 'picked');
    const outcome = await timeSkipping.run(
      async (env, taskQueue) => {
        const handle = await start(env, taskQueue, id);
        // Awaiting the result is what lets the server skip time up to the held move.
        const result = handle.result();
        await watch.atHold;
        const cancel = await http<{ data: { status: string } }>(api.baseUrl, 'POST', `/api/v1/shipping/shipments/${id}/cancel`, { key: ws.secretKey, body: { reason: 'Wrong size' } });
        expect(cancel.body.data.status).toBe('cancelled');
        watch.release();
        const outcome = await result;
        await recordHistory(handle, 'shipment-local-cancelled');
        return outcome;
      },
      { activities: watch.activities },
    );
    expect(outcome).toBe('cancelled');
    expect(watch.moves.map((m) => m.status)).toEqual(['confirmed', 'cancelled']);
    expect(await Shipment.findByPk(id)).toMatchObject({ status: 'cancelled', cancellationReason: 'Wrong size' });
    expect((await ShipmentEvent.findByPk(`local:${id}:picked`))!.outcome).toBe('ignored');
  });

  it('without an origin the booking is retried until the merchant sets one, then the shipment goes its way', async () => {
    const ws = await ctx.createWorkspace();
    const id = await insertShipment(ctx.sequelize, ws);
    let attempts = 0;
    const outcome = await timeSkipping.run(
      async (env, taskQueue) => {
        const handle = await start(env, taskQueue, id);
        return handle.result();
      },
      {
        activities: {
          ...activities,
          async bookShipment(input: Parameters<typeof activities.bookShipment>[0]) {
            attempts += 1;
            if (attempts === 3) await insertOrigin(ws);
            return activities.bookShipment(input);
          },
        },
      },
    );
    expect(outcome).toBe('delivered');
    expect(attempts).toBe(3);
    expect((await Shipment.findByPk(id))!.origin).toMatchObject({ address: 'Jl. Gatot Subroto 12' });
  });

  it('HTTP partner: booked there, waits for a late waybill until the webhook’s nudge, makes the label and ends booked', async () => {
    const aggregator = await startAggregatorServer();
    try {
      aggregator.instantWaybill = false;
      const partnerConfig = loadConfig({
        ...process.env,
        FILE_STORAGE_DIR: STORAGE,
        SHIPPING_PARTNER_URL: aggregator.baseUrl,
        SHIPPING_PARTNER_API_KEY: 'biteship_live.unused',
        SHIPPING_PARTNER_TEST_API_KEY: aggregator.apiKey,
        SHIPPING_PARTNER_WEBHOOK_SECRET: `whsec_${'w'.repeat(40)}`,
      });
      const partnerActivities = createActivities(testActivityDeps(ctx.sequelize, { config: partnerConfig }));
      const ws = await ctx.createWorkspace();
      await insertOrigin(ws);
      const id = await insertShipment(ctx.sequelize, ws);
      let firstLook!: () => void;
      const looked = new Promise<void>((resolve) => (firstLook = resolve));
      const { outcome, timersFired } = await timeSkipping.run(
        async (env, taskQueue) => {
          const handle = await start(env, taskQueue, id);
          await looked;
          // What a partner event bringing the waybill does: the row, then the nudge.
          await Shipment.update({ waybillId: 'JNE7770001' }, { where: { id } });
          await createStarters(env.client, { taskQueue, searchAttributes: false }).shipmentWaybillAssigned(id);
          const outcome = await handle.result();
          await recordHistory(handle, 'shipment-http-booked');
          const events = (await handle.fetchHistory()).events ?? [];
          return { outcome, timersFired: events.filter((e) => e.timerFiredEventAttributes).length };
        },
        {
          activities: {
            ...partnerActivities,
            async renderShipmentLabel(input: Parameters<typeof partnerActivities.renderShipmentLabel>[0]) {
              const result = await partnerActivities.renderShipmentLabel(input);
              firstLook();
              return result;
            },
          },
        },
      );
      expect(outcome).toBe('booked');
      // Woken by the signal, not by the daily look.
      expect(timersFired).toBe(0);
      const row = (await Shipment.findByPk(id))!;
      expect(row).toMatchObject({ partner: 'biteship', status: 'confirmed', waybillId: 'JNE7770001' });
      expect(row.labelKey).not.toBeNull();
    } finally {
      await aggregator.close();
    }
  });
});
