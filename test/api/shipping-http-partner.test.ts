import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Shipment } from '../../db/models';
import { loadConfig, type Config } from '../../lib/config';
import { createBiteshipPartner } from '../../lib/shipping/biteship';
import { PartnerError } from '../../lib/shipping/types';
import { insertOrigin, insertShipment, NEARBY, ORIGIN, shipmentSteps, shippingSnapshot } from '../fixtures/shipping';
import { tenantOf } from '../fixtures/workspaces';
import { startAggregatorServer, type AggregatorServer } from '../helpers/biteship-server';
import { createTestContext, http, type TestApi, type TestContext } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { switchFulfillment } from '../helpers/inventory';
import { pdfText } from '../helpers/pdf';

// The HTTP adapter against a real server speaking the aggregator's API over loopback sockets: directly, and
// behind the API with the test environment configured to use it (SHIPPING_PARTNER_TEST_API_KEY).

const STORAGE = mkdtempSync(path.join(tmpdir(), 'shipping-http-'));
let aggregator: AggregatorServer;
let ctx: TestContext;
let api: TestApi;
let config: Config;

beforeAll(async () => {
  aggregator = await startAggregatorServer();
  const env = {
    FILE_STORAGE_DIR: STORAGE,
    SHIPPING_PARTNER_URL: aggregator.baseUrl,
    SHIPPING_PARTNER_API_KEY: 'biteship_live.not-used-here',
    SHIPPING_PARTNER_TEST_API_KEY: aggregator.apiKey,
    SHIPPING_PARTNER_WEBHOOK_SECRET: `whsec_${'p'.repeat(40)}`,
    SHIPPING_PARTNER_TIMEOUT: '1s',
  };
  config = loadConfig({ ...process.env, ...env });
  ctx = await createTestContext();
  api = await ctx.startApi(env);
});
afterAll(async () => {
  await ctx.close();
  await aggregator.close();
  await rm(STORAGE, { recursive: true, force: true });
});
beforeEach(() => {
  aggregator.trouble = null;
  aggregator.instantWaybill = true;
  aggregator.requests.length = 0;
});

const partner = () => createBiteshipPartner({ baseUrl: aggregator.baseUrl, apiKey: aggregator.apiKey, timeoutMs: 1_000 });
const ITEM = { name: 'Ceramic mug', value: 85_000, weight: 400, length: 12, width: 10, height: 10, quantity: 2 };

describe('the HTTP adapter (Biteship API)', () => {
  it('couriers: grouped by courier, service types mapped (freight → cargo, same_day → same-day), ETA parsed', async () => {
    const couriers = await partner().couriers();
    expect(aggregator.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([['GET', '/v1/couriers', aggregator.apiKey]]);
    expect(couriers.map((c) => [c.code, c.services.map((s) => `${s.code}:${s.type}:${s.etaMin}-${s.etaMax} ${s.etaUnit}`)])).toEqual([
      ['jne', ['reg:regular:1-2 days', 'jtr:cargo:3-4 days']],
      ['gojek', ['instant:instant:1-3 hours']],
      ['paxel', ['sameday:same-day:8-12 hours']],
    ]);
    expect(couriers[1]!.services[0]).toMatchObject({ supportsInsurance: false, supportsCod: false });
    expect(couriers[0]!.logo).toMatch(/^data:image\/svg\+xml;base64,/);
  });

  it('rates: sends area ids, coordinates, postal codes, couriers and items in its names; maps pricing back', async () => {
    const rates = await partner().rates({
      origin: { areaId: ORIGIN.areaId, postal: '12950', lat: -6.2, lng: 106.8 },
      destination: { areaId: NEARBY.areaId!, postal: '12730' },
      items: [ITEM],
      couriers: ['jne', 'gojek'],
      insurance: true,
    });
    expect(aggregator.requests[0]!.body).toEqual({
      origin_area_id: ORIGIN.areaId,
      origin_latitude: -6.2,
      origin_longitude: 106.8,
      origin_postal_code: 12950,
      destination_area_id: NEARBY.areaId,
      destination_postal_code: 12730,
      couriers: 'jne,gojek',
      items: [{ name: 'Ceramic mug', value: 85_000, quantity: 2, weight: 400, length: 12, width: 10, height: 10 }],
      courier_insurance: 170_000,
    });
    // Gojek has no insurance: left out when insurance is asked for.
    expect(rates).toEqual([
      { courierCode: 'jne', courierName: 'JNE', courierServiceCode: 'reg', courierServiceName: 'Reguler', courierType: 'regular', price: 12_000, currency: 'IDR', etaMin: 1, etaMax: 2, etaUnit: 'days', insuranceFee: 1_500, supportsCod: true },
      { courierCode: 'jne', courierName: 'JNE', courierServiceCode: 'jtr', courierServiceName: 'JNE Trucking', courierType: 'cargo', price: 13_000, currency: 'IDR', etaMin: 3, etaMax: 4, etaUnit: 'days', insuranceFee: 1_500, supportsCod: false },
    ]);
  });

  it('booking: the order body in its names, the booking read back; booking the same reference again answers the first order', async () => {
    const request = { reference: 'shp_01JD4X7V1QZ8N6Y3K2M5P9R0TS', courierCode: 'jne', courierServiceCode: 'reg', origin: { ...ORIGIN }, destination: NEARBY, items: [ITEM], insurance: false };
    const first = await partner().createShipment(request);
    expect(aggregator.requests[0]!.body).toEqual({
      origin_contact_name: ORIGIN.contactName,
      origin_contact_phone: ORIGIN.contactPhone,
      origin_address: ORIGIN.address,
      origin_area_id: ORIGIN.areaId,
      origin_postal_code: 12950,
      destination_contact_name: NEARBY.contactName,
      destination_contact_phone: NEARBY.contactPhone,
      destination_address: NEARBY.address,
      destination_area_id: NEARBY.areaId,
      destination_postal_code: 12730,
      courier_company: 'jne',
      courier_type: 'reg',
      delivery_type: 'now',
      reference_id: request.reference,
      items: [{ name: 'Ceramic mug', value: 85_000, quantity: 2, weight: 400, length: 12, width: 10, height: 10 }],
    });
    expect(first).toEqual({ orderId: expect.any(String), waybillId: expect.stringMatching(/^WYB/), trackingUrl: `https://track.example.com/${first.orderId}`, price: 18_000, currency: 'IDR', status: 'confirmed' });
    expect(await partner().createShipment(request)).toEqual(first);
    expect(aggregator.orders.size).toBe(1);
    expect(aggregator.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/orders', 'POST /v1/orders', `GET /v1/orders/${first.orderId}`]);
  });

  it('errors: a 4xx answer is a refusal; a bad key, a 5xx, a timeout and no server are "unavailable"', async () => {
    const refused = partner().createShipment({ reference: 'shp_x', courierCode: 'pigeon', courierServiceCode: 'fast', origin: {}, destination: {}, items: [ITEM], insurance: false });
    await expect(refused).rejects.toMatchObject({ kind: 'refused', status: 400, message: expect.stringContaining('Courier service is not available') });
    await expect(createBiteshipPartner({ baseUrl: aggregator.baseUrl, apiKey: 'wrong', timeoutMs: 1_000 }).couriers()).rejects.toMatchObject({ kind: 'unavailable', status: 401 });
    aggregator.trouble = { status: 503 };
    await expect(partner().couriers()).rejects.toMatchObject({ kind: 'unavailable', status: 503 });
    aggregator.trouble = { delayMs: 1_500 };
    await expect(partner().couriers()).rejects.toBeInstanceOf(PartnerError);
    await expect(createBiteshipPartner({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', timeoutMs: 1_000 }).couriers()).rejects.toMatchObject({ kind: 'unavailable' });
  });
});

describe('shipping through the API with the HTTP partner (test environment, its testing key)', () => {
  const call = <T = Record<string, unknown>>(method: string, url: string, key: string, body?: unknown) =>
    http<{ data: T; error: { code: string } | null }>(api.baseUrl, method, `/api/v1/shipping${url}`, { key, body });

  async function workspace() {
    const ws = await ctx.createWorkspace();
    await switchFulfillment(api.baseUrl, ws.secretKey, true);
    return ws;
  }

  it('couriers, origin courier checks and rates come from the partner', async () => {
    const ws = await workspace();
    expect((await call<{ code: string }[]>('GET', '/couriers', ws.secretKey)).body.data.map((c) => c.code)).toEqual(['jne', 'gojek', 'paxel']);
    // A code the partner does not have is refused, though the local catalogue has it.
    expectError(await http(api.baseUrl, 'PATCH', '/api/v1/shipping/origin', { key: ws.secretKey, body: { ...ORIGIN, couriers: ['sicepat'] } }), 400, 'VALIDATION_ERROR');
    expect((await call('PATCH', '/origin', ws.secretKey, { ...ORIGIN, couriers: ['paxel'] })).status).toBe(200);
    const rates = await call<{ pricing: { courierCode: string; price: number }[] }>('POST', '/rates', ws.secretKey, { destination: NEARBY, items: [ITEM] });
    expect(rates.body.data.pricing).toEqual([expect.objectContaining({ courierCode: 'paxel', courierType: 'same-day', price: 12_000 })]);
    expect(aggregator.requests.at(-1)!.body.couriers).toBe('paxel');
  });

  it('the partner being down is 502 PARTNER_UNAVAILABLE, writing nothing', async () => {
    const ws = await workspace();
    aggregator.trouble = { status: 500 };
    const before = await shippingSnapshot(ctx.sequelize, ws.accountId);
    expectError(await http(api.baseUrl, 'GET', '/api/v1/shipping/couriers', { key: ws.secretKey }), 502, 'PARTNER_UNAVAILABLE');
    expectError(await http(api.baseUrl, 'POST', '/api/v1/shipping/rates', { key: ws.secretKey, body: { origin: ORIGIN, destination: NEARBY, items: [ITEM] } }), 502, 'PARTNER_UNAVAILABLE');
    expectError(await http(api.baseUrl, 'PATCH', '/api/v1/shipping/origin', { key: ws.secretKey, body: { ...ORIGIN, couriers: ['jne'] } }), 502, 'PARTNER_UNAVAILABLE');
    expect(await shippingSnapshot(ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('books with the partner (its order id, waybill, price and status), renders the label, and cancels there; after pickup the partner refuses: 409', async () => {
    const ws = await workspace();
    await insertOrigin(ws);
    const steps = shipmentSteps(ctx.sequelize, config);
    const id = await insertShipment(ctx.sequelize, ws);
    expect(await steps.bookShipment(tenantOf(ws), id)).toEqual({ state: 'booked', partner: 'biteship', waybillId: expect.stringMatching(/^WYB/), schedule: null });
    const row = (await Shipment.findByPk(id))!;
    expect(row).toMatchObject({ partner: 'biteship', status: 'confirmed', price: 18_000, trackingUrl: `https://track.example.com/${row.partnerOrderId}` });
    expect(aggregator.orders.get(row.partnerOrderId!)!.reference_id).toBe(id);
    // Booking again (a retried activity) books nothing more.
    await steps.bookShipment(tenantOf(ws), id);
    expect(aggregator.orders.size).toBeGreaterThanOrEqual(1);
    expect([...aggregator.orders.values()].filter((o) => o.reference_id === id)).toHaveLength(1);

    expect(await steps.renderShipmentLabel(tenantOf(ws), id)).toBe('rendered');
    const label = await call<{ url: string }>('GET', `/shipments/${id}/label`, ws.secretKey);
    const pdf = Buffer.from(await (await fetch(`${api.baseUrl}${new URL(label.body.data.url).pathname}`)).arrayBuffer());
    expect(await pdfText(pdf)).toContain(`Waybill ${row.waybillId}`);

    const canceled = await call<{ status: string }>('POST', `/shipments/${id}/cancel`, ws.secretKey, { reason: 'Out of stock' });
    expect(canceled.body.data.status).toBe('cancelled');
    expect(aggregator.requests.at(-1)).toMatchObject({ path: `/v1/orders/${row.partnerOrderId}/cancel`, body: { cancellation_reason_code: 'others', cancellation_reason: 'Out of stock' } });

    // The partner has the parcel (its own state) while ours still says confirmed: its refusal is ours.
    const picked = await insertShipment(ctx.sequelize, ws);
    await steps.bookShipment(tenantOf(ws), picked);
    const order = aggregator.orders.get((await Shipment.findByPk(picked))!.partnerOrderId!)!;
    order.status = 'picked';
    const before = await shippingSnapshot(ctx.sequelize, ws.accountId);
    expectError(await http(api.baseUrl, 'POST', `/api/v1/shipping/shipments/${picked}/cancel`, { key: ws.secretKey }), 409, 'INVALID_STATE');
    aggregator.trouble = { status: 502 };
    expectError(await http(api.baseUrl, 'POST', `/api/v1/shipping/shipments/${picked}/cancel`, { key: ws.secretKey }), 502, 'PARTNER_UNAVAILABLE');
    expect(await shippingSnapshot(ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('a courier that gives the waybill later: no label until the waybill event, then one', async () => {
    const ws = await workspace();
    await insertOrigin(ws);
    aggregator.instantWaybill = false;
    const steps = shipmentSteps(ctx.sequelize, config);
    const id = await insertShipment(ctx.sequelize, ws);
    expect(await steps.bookShipment(tenantOf(ws), id)).toMatchObject({ state: 'booked', waybillId: null });
    expect(await steps.renderShipmentLabel(tenantOf(ws), id)).toBe('no_waybill');
    await Shipment.update({ waybillId: 'JNE5550001' }, { where: { id } });
    expect(await steps.renderShipmentLabel(tenantOf(ws), id)).toBe('rendered');
  });
});
