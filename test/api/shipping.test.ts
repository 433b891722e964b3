import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import bwipjs from 'bwip-js';
import { Shipment } from '../../db/models';
import { assertShippingChoice, placeFromShippingAddress, shippingChoiceOf } from '../../domain/shipping/create';
import { LABEL_PATH } from '../../domain/shipping/labels';
import { loadConfig } from '../../lib/config';
import { createShippingPartners } from '../../lib/shipping';
import { localWaybill } from '../../lib/shipping/local-partner';
import { insertBookedShipment, insertOrigin, insertShipment, NEARBY, ORIGIN, shipmentSteps, shippingSnapshot } from '../fixtures/shipping';
import { tenantOf } from '../fixtures/workspaces';
import { http, useTestApi, type HttpResult } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { switchFulfillment } from '../helpers/inventory';
import { barcodeModules, pdfText } from '../helpers/pdf';

const STORAGE = mkdtempSync(path.join(tmpdir(), 'shipping-'));
const t = useTestApi({ FILE_STORAGE_DIR: STORAGE });
afterAll(() => rm(STORAGE, { recursive: true, force: true }));
const config = loadConfig({ ...process.env, FILE_STORAGE_DIR: STORAGE });

const SHIPPING = '/api/v1/shipping';
type Data<T> = { data: T; error: { code: string; details?: unknown } | null; meta: { page?: { nextCursor: string | null } } };
type Json = Record<string, unknown>;
type Rate = { courierCode: string; courierServiceCode: string; courierType: string; price: number; currency: string; etaMin: number; etaMax: number; etaUnit: string; insuranceFee: number; supportsCod: boolean };
type ShipmentDto = Json & { id: string; status: string; waybillId: string | null; labelUrl: string | null; cancellationReason: string | null; price: number | null };

const call = <T = Json>(method: string, url: string, key: string, body?: unknown) => http<Data<T>>(t.api.baseUrl, method, `${SHIPPING}${url}`, { key, body });

/** A workspace with the fulfillment module on (switched through the API, so the key cache knows at once). */
async function workspace() {
  const ws = await t.ctx.createWorkspace();
  await switchFulfillment(t.api.baseUrl, ws.secretKey, true);
  return ws;
}

const ITEM = { name: 'Ceramic mug', value: 85_000, weight: 400, quantity: 1 };
const err = (res: HttpResult<Data<unknown>>) => res as unknown as HttpResult;

describe('the fulfillment module switch', () => {
  it('answers 409 fulfillment_module_disabled on every keyed shipping route while off, writing nothing, and resumes with the data kept', async () => {
    const ws = await t.ctx.createWorkspace();
    await insertOrigin(ws);
    const shipmentId = await insertBookedShipment(t.ctx.sequelize, ws, {}, config);
    // The label's signed link, as the merchant got it while the module was on.
    await switchFulfillment(t.api.baseUrl, ws.secretKey, true);
    const link = (await call<{ url: string }>('GET', `/shipments/${shipmentId}/label`, ws.secretKey)).body.data.url;
    await switchFulfillment(t.api.baseUrl, ws.secretKey, false);

    const doc = (await http<{ paths: Record<string, Record<string, { security?: unknown[] }>> }>(t.api.baseUrl, 'GET', '/api/openapi.json')).body;
    const bodies: Record<string, unknown> = {
      'patch /v1/shipping/origin': ORIGIN,
      'post /v1/shipping/rates': { destination: NEARBY, items: [ITEM] },
      'post /v1/shipping/shipments/{id}/cancel': {},
    };
    const before = await shippingSnapshot(t.ctx.sequelize, ws.accountId);
    const answered: string[] = [];
    for (const [route, operations] of Object.entries(doc.paths).filter(([p]) => p.startsWith('/v1/shipping/'))) {
      for (const [method, operation] of Object.entries(operations)) {
        if (!operation.security?.length || operation.security.some((s) => Object.keys(s as object).length === 0)) continue;
        const res = await http(t.api.baseUrl, method.toUpperCase(), `/api${route.replace('{id}', shipmentId)}`, { key: ws.secretKey, body: bodies[`${method} ${route}`] });
        answered.push(`${method} ${route} ${res.status} ${(res.body.error as { code?: string } | null)?.code}`);
      }
    }
    expect(answered.sort()).toEqual(
      [
        'get /v1/shipping/origin',
        'patch /v1/shipping/origin',
        'get /v1/shipping/couriers',
        'post /v1/shipping/rates',
        'get /v1/shipping/shipments',
        'get /v1/shipping/shipments/{id}',
        'post /v1/shipping/shipments/{id}/cancel',
        'get /v1/shipping/shipments/{id}/label',
      ]
        .map((r) => `${r} 409 fulfillment_module_disabled`)
        .sort(),
    );
    // The module is checked before the body: an invalid one is still told about the module.
    expectError(await http(t.api.baseUrl, 'PATCH', `${SHIPPING}/origin`, { key: ws.secretKey, body: { bogus: 1 } }), 409, 'fulfillment_module_disabled');
    // The label link the merchant holds stops working too; the live environment shares the switch.
    expectError(await http(t.api.baseUrl, 'GET', new URL(link).pathname), 409, 'fulfillment_module_disabled');
    expectError(await http(t.api.baseUrl, 'GET', `${SHIPPING}/shipments`, { key: ws.liveSecretKey }), 409, 'fulfillment_module_disabled');
    expect(await shippingSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);

    await switchFulfillment(t.api.baseUrl, ws.secretKey, true);
    const kept = await call<ShipmentDto>('GET', `/shipments/${shipmentId}`, ws.secretKey);
    expect(kept.status).toBe(200);
    expect(kept.body.data.waybillId).toBe(localWaybill(shipmentId));
    expect((await call<Json>('GET', '/origin', ws.secretKey)).body.data).toMatchObject({ configured: true, address: ORIGIN.address });
    expect((await fetch(`${t.api.baseUrl}${new URL(link).pathname}`)).status).toBe(200);
  });

  it('the public tracking route is always 410 MOVED, with or without the module and a key', async () => {
    const ws = await t.ctx.createWorkspace();
    expectError(await http(t.api.baseUrl, 'GET', `${SHIPPING}/track/JNE0001234`), 410, 'MOVED');
    expectError(await http(t.api.baseUrl, 'GET', `${SHIPPING}/track/JNE0001234`, { key: ws.secretKey }), 410, 'MOVED');
  });
});

describe('origin', () => {
  it('reads as not configured until set, then PATCH keeps left-out fields and clears null ones; environments are separate', async () => {
    const ws = await workspace();
    expect((await call<Json>('GET', '/origin', ws.secretKey)).body.data).toMatchObject({ accountId: ws.accountId, configured: false, address: null, couriers: [], updatedAt: null });

    const set = await call<Json>('PATCH', '/origin', ws.secretKey, { ...ORIGIN, lat: -6.2297, lng: 106.8295, note: 'Gate 3', couriers: ['jne', 'gojek'] });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ configured: true, ...ORIGIN, lat: -6.2297, lng: 106.8295, note: 'Gate 3', couriers: ['jne', 'gojek'] });

    const patched = await call<Json>('PATCH', '/origin', ws.secretKey, { address: 'Jl. Sudirman 1', contactName: 'Ops', contactPhone: '021 1234', note: null });
    expect(patched.body.data).toMatchObject({ address: 'Jl. Sudirman 1', contactName: 'Ops', city: ORIGIN.city, lat: -6.2297, note: null, couriers: ['jne', 'gojek'] });
    expect((await call<Json>('GET', '/origin', ws.secretKey)).body.data).toEqual(patched.body.data);
    expect((await call<Json>('GET', '/origin', ws.liveSecretKey)).body.data).toMatchObject({ configured: false });
  });

  it.each([
    ['address missing', { contactName: 'A', contactPhone: '1' }, 'address'],
    ['contactName empty', { ...ORIGIN, contactName: '  ' }, 'contactName'],
    ['contactPhone over 30', { ...ORIGIN, contactPhone: '1'.repeat(31) }, 'contactPhone'],
    ['address over 500', { ...ORIGIN, address: 'a'.repeat(501) }, 'address'],
    ['lat above 90', { ...ORIGIN, lat: 90.5, lng: 0 }, 'lat'],
    ['lat below −90', { ...ORIGIN, lat: -91, lng: 0 }, 'lat'],
    ['lng above 180', { ...ORIGIN, lat: 0, lng: 180.1 }, 'lng'],
    ['lng below −180', { ...ORIGIN, lat: 0, lng: -181 }, 'lng'],
    ['lat without lng', { ...ORIGIN, lat: 1 }, 'lng'],
    ['a courier code of the wrong shape', { ...ORIGIN, couriers: ['JNE!'] }, 'couriers.0'],
    ['an unknown courier', { ...ORIGIN, couriers: ['jne', 'pigeon'] }, 'couriers.1'],
    ['a repeated courier', { ...ORIGIN, couriers: ['jne', 'jne'] }, 'couriers'],
    ['an unknown field', { ...ORIGIN, country: 'ID' }, 'country'],
  ])('refuses %s with 400 VALIDATION_ERROR naming it, writing nothing', async (_case, body, field) => {
    const ws = await workspace();
    const before = await shippingSnapshot(t.ctx.sequelize, ws.accountId);
    const res = await call('PATCH', '/origin', ws.secretKey, body);
    expectError(err(res), 400, 'VALIDATION_ERROR');
    expect((res.body.error?.details as { field?: string }[]).map((d) => d.field)).toContain(field);
    expect(await shippingSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('accepts the bounds themselves', async () => {
    const ws = await workspace();
    for (const [lat, lng] of [[-90, -180], [90, 180]]) {
      expect((await call<Json>('PATCH', '/origin', ws.secretKey, { ...ORIGIN, lat, lng })).body.data).toMatchObject({ lat, lng });
    }
  });
});

describe('couriers', () => {
  it('lists every courier with service types, a logo, insurance and COD flags; narrowed to the origin’s couriers', async () => {
    const ws = await workspace();
    const all = (await call<{ code: string; logo: string; services: { type: string; supportsCod: boolean; supportsInsurance: boolean }[] }[]>('GET', '/couriers', ws.secretKey)).body.data;
    expect(all.map((c) => c.code)).toEqual(['jne', 'jnt', 'sicepat', 'anteraja', 'pos', 'gojek', 'grab', 'deliveree']);
    expect(new Set(all.flatMap((c) => c.services.map((s) => s.type)))).toEqual(new Set(['instant', 'same-day', 'regular', 'cargo']));
    for (const courier of all) expect(Buffer.from(courier.logo.replace('data:image/svg+xml;base64,', ''), 'base64').toString()).toMatch(/^<svg /);
    const gojek = all.find((c) => c.code === 'gojek')!;
    expect(gojek.services.every((s) => !s.supportsInsurance && !s.supportsCod)).toBe(true);
    expect(all.find((c) => c.code === 'jne')!.services.find((s) => s.type === 'regular')).toMatchObject({ supportsCod: true, supportsInsurance: true, etaMin: 1, etaMax: 2, etaUnit: 'days' });

    await call('PATCH', '/origin', ws.secretKey, { ...ORIGIN, couriers: ['sicepat', 'gojek'] });
    expect((await call<{ code: string }[]>('GET', '/couriers', ws.secretKey)).body.data.map((c) => c.code)).toEqual(['sicepat', 'gojek']);
  });
});

describe('rates', () => {
  const rates = (key: string, body: unknown) => call<{ pricing: Rate[] }>('POST', '/rates', key, body);

  it('quotes the documented table: deterministic, cheapest first, every documented field', async () => {
    const ws = await workspace();
    await insertOrigin(ws);
    const body = { destination: NEARBY, items: [{ ...ITEM, quantity: 3 }] };
    const first = await rates(ws.secretKey, body);
    expect(first.status).toBe(200);
    expect((await rates(ws.secretKey, body)).body.data).toEqual(first.body.data);
    const pricing = first.body.data.pricing;
    expect(pricing.map((r) => r.price)).toEqual([...pricing.map((r) => r.price)].sort((a, b) => a - b));
    // Same city (area ids share province 6 and city 148): zone 1. 3 × 400 g = 1.2 kg → 2 kg.
    const byService = Object.fromEntries(pricing.map((r) => [`${r.courierCode}/${r.courierServiceCode}`, r]));
    expect(byService['jne/reg']).toEqual({
      courierCode: 'jne',
      courierName: 'JNE',
      courierServiceCode: 'reg',
      courierServiceName: 'Reguler',
      courierType: 'regular',
      price: 18_000, // 9 000 × 2 kg
      currency: 'IDR',
      etaMin: 1,
      etaMax: 2,
      etaUnit: 'days',
      insuranceFee: 0,
      supportsCod: true,
    });
    expect(byService['sicepat/reg']!.price).toBe(16_500); // 18 000 × 0.9 = 16 200, up to 16 500
    expect(byService['gojek/instant']).toMatchObject({ price: 30_000, courierType: 'instant', etaUnit: 'hours' }); // 25 000 + 5 000
    expect(byService['anteraja/same_day']).toMatchObject({ price: 24_000, courierType: 'same-day' }); // 20 000 + 4 000
    expect(byService['jne/jtr']).toMatchObject({ price: 40_000, courierType: 'cargo' }); // 10 kg minimum × 4 000
  });

  it('charges volumetric weight (L × W × H / 6000) when it exceeds the actual weight, and prices by zone', async () => {
    const ws = await workspace();
    await insertOrigin(ws);
    const jneReg = async (body: unknown) => (await rates(ws.secretKey, body)).body.data.pricing.find((r) => r.courierCode === 'jne' && r.courierServiceCode === 'reg');
    // 40 × 30 × 30 cm = 6 kg volumetric against 400 g actual.
    expect((await jneReg({ destination: NEARBY, items: [{ ...ITEM, length: 40, width: 30, height: 30 }] }))!.price).toBe(54_000);
    // Same province, another city (area C149): zone 2; another province (P9): zone 3, no instant or same-day.
    expect((await jneReg({ destination: { address: 'Bekasi', areaId: 'IDNP6IDNC149IDND1IDZ17111' }, items: [ITEM] }))!.price).toBe(14_000);
    const far = (await rates(ws.secretKey, { destination: { address: 'Surabaya', areaId: 'IDNP9IDNC400IDND1IDZ60111' }, items: [ITEM] })).body.data.pricing;
    expect(far.find((r) => r.courierCode === 'jne' && r.courierServiceCode === 'reg')).toMatchObject({ price: 22_000, etaMin: 3, etaMax: 5 });
    expect(far.filter((r) => r.courierType === 'instant' || r.courierType === 'same-day')).toEqual([]);
    // Without area ids: coordinates (≈ 4 km apart), then postal codes.
    const coords = await jneReg({ origin: { address: 'A', lat: -6.2297, lng: 106.8295 }, destination: { address: 'B', lat: -6.2607, lng: 106.8133 }, items: [ITEM] });
    expect(coords!.price).toBe(9_000);
    const postal = await jneReg({ origin: { address: 'A', postal: '12950' }, destination: { address: 'B', postal: '40111' }, items: [ITEM] });
    expect(postal!.price).toBe(22_000);
  });

  it('narrows to `couriers` (or the origin’s list), adds insurance and leaves out services without it', async () => {
    const ws = await workspace();
    await insertOrigin(ws, { couriers: ['gojek', 'jne'] });
    const onlyOrigin = (await rates(ws.secretKey, { destination: NEARBY, items: [ITEM] })).body.data.pricing;
    expect(new Set(onlyOrigin.map((r) => r.courierCode))).toEqual(new Set(['gojek', 'jne']));
    const asked = (await rates(ws.secretKey, { destination: NEARBY, items: [ITEM], couriers: ['pos'] })).body.data.pricing;
    expect(asked.map((r) => `${r.courierCode}/${r.courierServiceCode}`)).toEqual(['pos/reg']);
    const insured = (await rates(ws.secretKey, { destination: NEARBY, items: [{ ...ITEM, value: 2_000_000, quantity: 2 }], insurance: true })).body.data.pricing;
    expect(insured.some((r) => r.courierCode === 'gojek')).toBe(false);
    expect(insured.find((r) => r.courierCode === 'jne' && r.courierServiceCode === 'reg')!.insuranceFee).toBe(8_000); // 0.2% of 4 000 000
  });

  it.each([
    ['an unknown courier', { destination: NEARBY, items: [ITEM], couriers: ['jne', 'pigeon'] }, 'couriers.1'],
    ['an item without weight', { destination: NEARBY, items: [{ name: 'Mug', value: 1, quantity: 1 }] }, 'items.0.weight'],
    ['a zero weight', { destination: NEARBY, items: [{ ...ITEM, weight: 0 }] }, 'items.0.weight'],
    ['no items', { destination: NEARBY, items: [] }, 'items'],
    ['no destination', { items: [ITEM] }, 'destination'],
    ['a destination without address or areaId', { destination: { city: 'Jakarta' }, items: [ITEM] }, 'destination'],
    ['a fractional dimension', { destination: NEARBY, items: [{ ...ITEM, length: 1.5 }] }, 'items.0.length'],
    ['an unknown field', { destination: NEARBY, items: [ITEM], speed: 'fast' }, 'speed'],
  ])('refuses %s with 400 VALIDATION_ERROR', async (_case, body, field) => {
    const ws = await workspace();
    await insertOrigin(ws);
    const res = await rates(ws.secretKey, body);
    expectError(err(res), 400, 'VALIDATION_ERROR');
    expect((res.body.error?.details as { field?: string }[]).map((d) => d.field)).toContain(field);
  });

  it('needs an origin: the stored one or an override', async () => {
    const ws = await workspace();
    expectError(err(await rates(ws.secretKey, { destination: NEARBY, items: [ITEM] })), 400, 'VALIDATION_ERROR');
    expect((await rates(ws.secretKey, { origin: ORIGIN, destination: NEARBY, items: [ITEM] })).status).toBe(200);
  });
});

describe('shipments', () => {
  it('lists newest first with a status filter and cursor pages, and retrieves; another environment sees none', async () => {
    const ws = await workspace();
    await insertOrigin(ws);
    const first = await insertShipment(t.ctx.sequelize, ws);
    const second = await insertBookedShipment(t.ctx.sequelize, ws, {}, config);
    await shipmentSteps(t.ctx.sequelize, config).advanceLocalShipment(tenantOf(ws), second, 'confirmed');
    const third = await insertShipment(t.ctx.sequelize, ws);

    const list = await call<ShipmentDto[]>('GET', '/shipments', ws.secretKey);
    expect(list.body.data.map((s) => s.id)).toEqual([third, second, first]);
    const page = await call<ShipmentDto[]>('GET', '/shipments?limit=2', ws.secretKey);
    expect(page.body.data.map((s) => s.id)).toEqual([third, second]);
    const rest = await call<ShipmentDto[]>('GET', `/shipments?limit=2&cursor=${page.body.meta.page!.nextCursor}`, ws.secretKey);
    expect(rest.body.data.map((s) => s.id)).toEqual([first]);
    expect((await call<ShipmentDto[]>('GET', '/shipments?status=pending', ws.secretKey)).body.data.map((s) => s.id)).toEqual([third, first]);
    expect((await call<ShipmentDto[]>('GET', '/shipments?status=confirmed', ws.secretKey)).body.data.map((s) => s.id)).toEqual([second]);
    expectError(await http(t.api.baseUrl, 'GET', `${SHIPPING}/shipments?status=lost`, { key: ws.secretKey }), 400, 'VALIDATION_ERROR');
    expect((await call<ShipmentDto[]>('GET', '/shipments', ws.liveSecretKey)).body.data).toEqual([]);

    const shown = (await call<ShipmentDto>('GET', `/shipments/${second}`, ws.secretKey)).body.data;
    const row = (await Shipment.findByPk(second))!;
    expect(shown).toEqual({
      id: second,
      accountId: ws.accountId,
      waybillId: localWaybill(second),
      courierCode: 'jne',
      courierServiceCode: 'reg',
      status: 'confirmed',
      // 2 × 400 g actual, 2 × 12 × 10 × 10 / 6000 kg volumetric: 800 g → 1 kg at 9 000.
      price: 9_000,
      currency: 'IDR',
      insurance: false,
      origin: { ...ORIGIN },
      destination: NEARBY,
      items: [{ name: 'Ceramic mug', value: 85_000, weight: 400, length: 12, width: 10, height: 10, quantity: 2 }],
      labelUrl: expect.stringContaining(`${LABEL_PATH}/`),
      trackingUrl: null,
      externalSource: 'checkout_session',
      externalRef: row.checkoutSessionId,
      cancellationReason: null,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    });
    expect((await call<ShipmentDto>('GET', `/shipments/${first}`, ws.secretKey)).body.data).toMatchObject({ status: 'pending', waybillId: null, price: null, labelUrl: null });
    expectError(await http(t.api.baseUrl, 'GET', `${SHIPPING}/shipments/shp_01JD4X7V1QZ8N6Y3K2M5P9R0TS`, { key: ws.secretKey }), 404, 'RESOURCE_NOT_FOUND');
  });

  it('creates one shipment per checkout line, however often the fulfillment step runs', async () => {
    const ws = await workspace();
    const id = await insertShipment(t.ctx.sequelize, ws);
    const sessionId = (await Shipment.findByPk(id))!.checkoutSessionId!;
    expect(await insertShipment(t.ctx.sequelize, ws, { checkoutSessionId: sessionId })).toBe(id);
    expect(await Shipment.count({ where: { checkoutSessionId: sessionId } })).toBe(1);
    const starts = await t.ctx.sequelize.query('SELECT workflow_id FROM workflow_starts WHERE workflow_id = :id', { replacements: { id: `shipment:${id}` } });
    expect(starts[0]).toHaveLength(1);
  });

  it('cancels before pickup with the default or a given reason; after pickup, or twice, 409 INVALID_STATE and nothing written', async () => {
    const ws = await workspace();
    await insertOrigin(ws);
    const pending = await insertShipment(t.ctx.sequelize, ws);
    const canceled = await call<ShipmentDto>('POST', `/shipments/${pending}/cancel`, ws.secretKey);
    expect(canceled.status).toBe(200);
    expect(canceled.body.data).toMatchObject({ status: 'cancelled', cancellationReason: 'Merchant cancelled' });
    const again = await call('POST', `/shipments/${pending}/cancel`, ws.secretKey, { reason: 'Again' });
    expectError(err(again), 409, 'INVALID_STATE');
    expect((await Shipment.findByPk(pending))!.cancellationReason).toBe('Merchant cancelled');

    const confirmed = await insertBookedShipment(t.ctx.sequelize, ws, {}, config);
    const steps = shipmentSteps(t.ctx.sequelize, config);
    await steps.advanceLocalShipment(tenantOf(ws), confirmed, 'confirmed');
    expect((await call<ShipmentDto>('POST', `/shipments/${confirmed}/cancel`, ws.secretKey, { reason: 'Buyer changed address' })).body.data).toMatchObject({
      status: 'cancelled',
      cancellationReason: 'Buyer changed address',
    });
    // The local partner's later moves do not revive it.
    expect(await steps.advanceLocalShipment(tenantOf(ws), confirmed, 'picked')).toBe('cancelled');

    const picked = await insertBookedShipment(t.ctx.sequelize, ws, {}, config);
    await steps.advanceLocalShipment(tenantOf(ws), picked, 'picked');
    const before = await shippingSnapshot(t.ctx.sequelize, ws.accountId);
    const late = await call('POST', `/shipments/${picked}/cancel`, ws.secretKey);
    expectError(err(late), 409, 'INVALID_STATE');
    expect(late.body.error!.code).toBe('INVALID_STATE');
    expect(await shippingSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
    expectError(await http(t.api.baseUrl, 'POST', `${SHIPPING}/shipments/${picked}/cancel`, { key: ws.secretKey, body: { reason: '' } }), 400, 'VALIDATION_ERROR');
    expect(await shippingSnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('a booking the partner refuses cancels the shipment with the reason; one without an origin waits', async () => {
    const ws = await workspace();
    const steps = shipmentSteps(t.ctx.sequelize, config);
    const waiting = await insertShipment(t.ctx.sequelize, ws);
    await expect(steps.bookShipment(tenantOf(ws), waiting)).rejects.toThrow(/waits for a ship-from origin/);
    expect((await Shipment.findByPk(waiting))!.status).toBe('pending');
    await insertOrigin(ws);
    expect(await steps.bookShipment(tenantOf(ws), waiting)).toMatchObject({ state: 'booked', partner: 'local', waybillId: localWaybill(waiting) });
    expect((await Shipment.findByPk(waiting))!.origin).toEqual({ ...ORIGIN });

    const unknown = await insertShipment(t.ctx.sequelize, ws, { courierCode: 'pigeon', courierService: 'fast' });
    expect(await steps.bookShipment(tenantOf(ws), unknown)).toEqual({ state: 'cancelled' });
    expect((await call<ShipmentDto>('GET', `/shipments/${unknown}`, ws.secretKey)).body.data).toMatchObject({
      status: 'cancelled',
      cancellationReason: expect.stringMatching(/^Refused by the shipping partner: pigeon\/fast/),
    });
  });

  it('label: 404 LABEL_NOT_AVAILABLE until made, then a signed link to a real PDF with the waybill as text and as a Code 128 barcode', async () => {
    const ws = await workspace();
    await insertOrigin(ws);
    const id = await insertShipment(t.ctx.sequelize, ws);
    expectError(err(await call('GET', `/shipments/${id}/label`, ws.secretKey)), 404, 'LABEL_NOT_AVAILABLE');
    const steps = shipmentSteps(t.ctx.sequelize, config);
    await steps.bookShipment(tenantOf(ws), id);
    // Booked but not yet rendered: label creation is asynchronous.
    expectError(err(await call('GET', `/shipments/${id}/label`, ws.secretKey)), 404, 'LABEL_NOT_AVAILABLE');
    expect(await steps.renderShipmentLabel(tenantOf(ws), id)).toBe('rendered');
    expect(await steps.renderShipmentLabel(tenantOf(ws), id)).toBe('rendered');

    const label = await call<{ url: string; expiresAt: string }>('GET', `/shipments/${id}/label`, ws.secretKey);
    expect(label.status).toBe(200);
    expect(Date.parse(label.body.data.expiresAt) - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000);
    const res = await fetch(`${t.api.baseUrl}${new URL(label.body.data.url).pathname}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const waybill = localWaybill(id);
    expect(res.headers.get('content-disposition')).toContain(`label-${waybill}.pdf`);
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');

    const text = await pdfText(pdf);
    for (const expected of [`Waybill ${waybill}`, 'JNE - Reguler', 'Budi Santoso', 'Jl. Kemang Raya 5', 'Gudang Utama', 'Jl. Gatot Subroto 12', '2 x Ceramic mug', 'Total weight 800 g', id]) {
      expect(text).toContain(expected);
    }
    const [encoded] = bwipjs.raw({ bcid: 'code128', text: waybill }) as { sbs: number[] }[];
    expect(await barcodeModules(pdf)).toEqual(encoded!.sbs);

    // A tampered link is refused.
    const tampered = `${new URL(label.body.data.url).pathname.slice(0, -2)}xx`;
    expectError(await http(t.api.baseUrl, 'GET', tampered), 403, 'FORBIDDEN');
  });

  it('a cancelled shipment never gets a label', async () => {
    const ws = await workspace();
    await insertOrigin(ws);
    const id = await insertShipment(t.ctx.sequelize, ws);
    await call('POST', `/shipments/${id}/cancel`, ws.secretKey);
    const steps = shipmentSteps(t.ctx.sequelize, config);
    expect(await steps.bookShipment(tenantOf(ws), id)).toEqual({ state: 'cancelled' });
    expect(await steps.renderShipmentLabel(tenantOf(ws), id)).toBe('closed');
    expectError(err(await call('GET', `/shipments/${id}/label`, ws.secretKey)), 404, 'LABEL_NOT_AVAILABLE');
  });
});

describe('the checkout’s courier choice (for the session create)', () => {
  it('reads courierCode and courierService from metadata and checks them against the couriers, the origin’s list and the services', async () => {
    const ws = await workspace();
    const partners = createShippingPartners(config);
    const tenant = tenantOf(ws);
    expect(shippingChoiceOf({ courierCode: 'jne', courierService: 'reg', gift: 'yes' })).toEqual({ courierCode: 'jne', courierService: 'reg' });
    expect(shippingChoiceOf({ courierCode: 'jne' })).toBeNull();
    await expect(assertShippingChoice(partners, tenant, { courierCode: 'jne', courierService: 'reg' })).resolves.toBeUndefined();
    const refusal = (field: string) => expect.objectContaining({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ field })] });
    await expect(assertShippingChoice(partners, tenant, null)).rejects.toEqual(refusal('metadata.courierCode'));
    await expect(assertShippingChoice(partners, tenant, { courierCode: 'pigeon', courierService: 'reg' })).rejects.toEqual(refusal('metadata.courierCode'));
    await expect(assertShippingChoice(partners, tenant, { courierCode: 'jne', courierService: 'instant' })).rejects.toEqual(refusal('metadata.courierService'));
    await insertOrigin(ws, { couriers: ['gojek'] });
    await expect(assertShippingChoice(partners, tenant, { courierCode: 'jne', courierService: 'reg' })).rejects.toEqual(refusal('metadata.courierCode'));
    await expect(assertShippingChoice(partners, tenant, { courierCode: 'gojek', courierService: 'instant' })).resolves.toBeUndefined();
  });

  it('turns the storefront’s shipping address into the shipment’s destination', () => {
    expect(placeFromShippingAddress({ name: 'Budi', line1: 'Jl. Kemang Raya 5', line2: 'Blok B', city: 'Jakarta Selatan', region: 'DKI Jakarta', postalCode: '12730', country: 'ID', phone: '0812' })).toEqual({
      address: 'Jl. Kemang Raya 5, Blok B',
      contactName: 'Budi',
      contactPhone: '0812',
      city: 'Jakarta Selatan',
      province: 'DKI Jakarta',
      postal: '12730',
    });
  });
});
