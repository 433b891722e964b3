import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { Shipment, ShipmentEvent } from '../../db/models';
import { localOrderId } from '../../lib/shipping/local-partner';
import { signWebhookPayload } from '../../lib/webhooks/signature';
import { insertBookedShipment, insertOrigin, shippingSnapshot } from '../fixtures/shipping';
import { http, useTestApi, type HttpResult } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { switchFulfillment } from '../helpers/inventory';

const SECRET = `whsec_${'k'.repeat(40)}`;
const t = useTestApi({ SHIPPING_PARTNER_WEBHOOK_SECRET: SECRET });
const unconfigured = useTestApi();
const PATH = '/api/v1/shipping/partner-webhooks';

type Answer = { data: { received: boolean; eventId: string; outcome: string } | null; error: { code: string; details?: { reason?: string } } | null };

const now = () => Math.floor(Date.now() / 1000);

/** One delivery as the partner sends it: the raw bytes, signed over `<t>.<body>`. */
function delivery(body: Record<string, unknown>, { secret = SECRET, timestamp = now() }: { secret?: string; timestamp?: number } = {}) {
  const raw = JSON.stringify(body);
  return { raw, signature: signWebhookPayload(raw, secret, timestamp) };
}

const send = (d: { raw: string; signature?: string }, baseUrl = t.api.baseUrl) =>
  http<Answer>(baseUrl, 'POST', PATH, { rawBody: d.raw, headers: { 'content-type': 'application/json', ...(d.signature ? { 'x-partner-signature': d.signature } : {}) } });

const statusEvent = (orderId: string, status: string, extra: Record<string, unknown> = {}) => ({
  event_id: `evt_${randomUUID()}`,
  event: 'order.status',
  order_id: orderId,
  status,
  ...extra,
});

async function bookedShipment() {
  const ws = await t.ctx.createWorkspace();
  await insertOrigin(ws);
  const id = await insertBookedShipment(t.ctx.sequelize, ws);
  return { ws, id, orderId: localOrderId(id) };
}

const receipts = async (eventId: string) =>
  (await t.ctx.sequelize.query<{ n: number }>('SELECT count(*)::int AS n FROM shipping_webhook_receipts WHERE event_id = :eventId', { type: QueryTypes.SELECT, replacements: { eventId } }))[0]!.n;

function expectRefused(res: HttpResult<Answer>, reason: string) {
  expectError(res as unknown as HttpResult, 401, 'UNAUTHORIZED');
  expect(res.body.error?.details?.reason).toBe(reason);
}

describe('the partner webhook', () => {
  it('applies a signed status event: 200 with the outcome, one event row, the status moved', async () => {
    const { id, orderId } = await bookedShipment();
    const event = statusEvent(orderId, 'picked', { courier_link: 'https://track.example.com/LP1' });
    const res = await send(delivery(event));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ received: true, eventId: event.event_id, outcome: 'applied' });
    expect(await Shipment.findByPk(id)).toMatchObject({ status: 'picked_up', trackingUrl: 'https://track.example.com/LP1' });
    expect(await ShipmentEvent.findAll({ where: { shipmentId: id }, raw: true })).toEqual([
      expect.objectContaining({ id: event.event_id, source: 'webhook', type: 'order.status', partnerStatus: 'picked', status: 'picked_up', outcome: 'applied' }),
    ]);
  });

  it('a duplicate event (the partner re-sends it, newly signed) is answered 200 and applied once', async () => {
    const { ws, id, orderId } = await bookedShipment();
    const event = statusEvent(orderId, 'dropping_off');
    expect((await send(delivery(event, { timestamp: now() - 5 }))).body.data?.outcome).toBe('applied');
    const after = await shippingSnapshot(t.ctx.sequelize, ws.accountId);
    const again = await send(delivery(event));
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ received: true, eventId: event.event_id, outcome: 'duplicate' });
    expect(await shippingSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(after);
    expect(await ShipmentEvent.count({ where: { shipmentId: id } })).toBe(1);
    expect(await receipts(event.event_id)).toBe(2);
  });

  it('two concurrent deliveries of one event apply it once', async () => {
    const { id, orderId } = await bookedShipment();
    const event = statusEvent(orderId, 'delivered');
    const answers = await Promise.all([send(delivery(event, { timestamp: now() - 1 })), send(delivery(event))]);
    expect(answers.map((a) => a.body.data?.outcome).sort()).toEqual(['applied', 'duplicate']);
    expect(await ShipmentEvent.count({ where: { shipmentId: id } })).toBe(1);
    expect((await Shipment.findByPk(id))!.status).toBe('delivered');
  });

  it('moves only forward: a late `confirmed` after pickup is recorded and ignored; a return after delivery applies', async () => {
    const { id, orderId } = await bookedShipment();
    await send(delivery(statusEvent(orderId, 'delivered')));
    const late = await send(delivery(statusEvent(orderId, 'confirmed')));
    expect(late.body.data?.outcome).toBe('ignored');
    const unknown = await send(delivery(statusEvent(orderId, 'disposed')));
    expect(unknown.body.data?.outcome).toBe('ignored');
    expect((await Shipment.findByPk(id))!.status).toBe('delivered');
    expect((await send(delivery(statusEvent(orderId, 'returned')))).body.data?.outcome).toBe('applied');
    expect((await Shipment.findByPk(id))!.status).toBe('returned');
    expect(await ShipmentEvent.count({ where: { shipmentId: id } })).toBe(4);
  });

  it('order.waybill_id replaces the waybill and drops the old label; order.price updates the price', async () => {
    const { id, orderId } = await bookedShipment();
    expect((await Shipment.findByPk(id))!.labelKey).not.toBeNull();
    await send(delivery({ event_id: `evt_${randomUUID()}`, event: 'order.waybill_id', order_id: orderId, courier_waybill_id: 'JNE99887766' }));
    expect(await Shipment.findByPk(id)).toMatchObject({ waybillId: 'JNE99887766', labelKey: null });
    await send(delivery({ event_id: `evt_${randomUUID()}`, event: 'order.price', order_id: orderId, order_price: 12_500 }));
    expect((await Shipment.findByPk(id))!.price).toBe(12_500);
  });

  it('a partner cancellation before pickup cancels the shipment with its reason', async () => {
    const { id, orderId } = await bookedShipment();
    expect((await send(delivery(statusEvent(orderId, 'courier_not_found')))).body.data?.outcome).toBe('applied');
    expect(await Shipment.findByPk(id)).toMatchObject({ status: 'cancelled', cancellationReason: 'Cancelled by the partner (courier_not_found)' });
  });

  it('applies while the workspace has the module off (the partner’s facts stay current)', async () => {
    const { ws, id, orderId } = await bookedShipment();
    await switchFulfillment(t.api.baseUrl, ws.secretKey, false);
    expect((await send(delivery(statusEvent(orderId, 'picked')))).status).toBe(200);
    expect((await Shipment.findByPk(id))!.status).toBe('picked_up');
  });

  describe('refusals: 401 UNAUTHORIZED with the reason, nothing written', () => {
    async function expectNothingWritten(accountId: string, eventId: string, act: () => Promise<void>) {
      const before = await shippingSnapshot(t.ctx.sequelize, accountId);
      await act();
      expect(await shippingSnapshot(t.ctx.sequelize, accountId)).toEqual(before);
      expect(await receipts(eventId)).toBe(0);
    }

    it('a forged signature (another secret, or the body changed after signing)', async () => {
      const { ws, orderId } = await bookedShipment();
      const event = statusEvent(orderId, 'picked');
      await expectNothingWritten(ws.accountId, event.event_id, async () => {
        expectRefused(await send(delivery(event, { secret: `whsec_${'x'.repeat(40)}` })), 'signature_mismatch');
        const signed = delivery(event);
        expectRefused(await send({ raw: signed.raw.replace('picked', 'delivered'), signature: signed.signature }), 'signature_mismatch');
        expectRefused(await send({ raw: signed.raw, signature: signed.signature.replace(/v1=[0-9a-f]{4}/, 'v1=0000') }), 'signature_mismatch');
      });
    });

    it('a missing or malformed header', async () => {
      const { ws, orderId } = await bookedShipment();
      const event = statusEvent(orderId, 'picked');
      await expectNothingWritten(ws.accountId, event.event_id, async () => {
        expectRefused(await send({ raw: JSON.stringify(event) }), 'missing_header');
        expectRefused(await send({ raw: JSON.stringify(event), signature: 'sha256=abc' }), 'malformed_header');
      });
    });

    it('a stale or future timestamp (beyond 300 seconds)', async () => {
      const { ws, orderId } = await bookedShipment();
      const event = statusEvent(orderId, 'picked');
      await expectNothingWritten(ws.accountId, event.event_id, async () => {
        expectRefused(await send(delivery(event, { timestamp: now() - 301 })), 'timestamp_outside_tolerance');
        expectRefused(await send(delivery(event, { timestamp: now() + 301 })), 'timestamp_outside_tolerance');
      });
    });

    it('a replayed delivery (the same signed bytes again)', async () => {
      const { ws, id, orderId } = await bookedShipment();
      const signed = delivery(statusEvent(orderId, 'picked'));
      expect((await send(signed)).status).toBe(200);
      const after = await shippingSnapshot(t.ctx.sequelize, ws.accountId);
      expectRefused(await send(signed), 'replayed');
      expect(await shippingSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(after);
      expect(await ShipmentEvent.count({ where: { shipmentId: id } })).toBe(1);
    });

    it('an API without SHIPPING_PARTNER_WEBHOOK_SECRET refuses every delivery', async () => {
      const { ws, orderId } = await bookedShipment();
      const event = statusEvent(orderId, 'picked');
      await expectNothingWritten(ws.accountId, event.event_id, async () => {
        expectRefused(await send(delivery(event), unconfigured.api.baseUrl), 'not_configured');
      });
    });
  });

  it('an unknown order_id is 404 (the partner retries later), writing nothing; a bad body after a good signature is 400', async () => {
    const event = statusEvent('lpo_01JD4X7V1QZ8N6Y3K2M5P9R0TS', 'picked');
    expectError((await send(delivery(event))) as unknown as HttpResult, 404, 'RESOURCE_NOT_FOUND');
    expect(await receipts(event.event_id)).toBe(0);
    expectError((await send(delivery({ event: 'order.status' }))) as unknown as HttpResult, 400, 'VALIDATION_ERROR');
    const notJson = '{"event_id":';
    expectError((await send({ raw: notJson, signature: signWebhookPayload(notJson, SECRET, now()) })) as unknown as HttpResult, 400, 'VALIDATION_ERROR');
  });
});
