import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { adjustStock, createVariant, createWarehouse, INVENTORY, inventorySnapshot, stockOf, switchFulfillment } from '../helpers/inventory';
import { createProduct } from '../helpers/storefront';
import { waitFor } from '../helpers/wait';

const t = useTestApi();

type OpenApi = { paths: Record<string, Record<string, unknown>> };

/** Every documented inventory operation, its ids filled in (a guard refuses before looking at them). */
async function inventoryCalls(ids: { warehouseId: string; variantId: string }): Promise<Array<{ method: string; url: string }>> {
  const doc = (await http<OpenApi>(t.api.baseUrl, 'GET', '/api/openapi.json')).body;
  const calls = Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/v1/inventory/'))
    .flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => {
        const id = path.startsWith('/v1/inventory/warehouses') ? ids.warehouseId : ids.variantId;
        return { method: method.toUpperCase(), url: `/api${path.replace('{id}', id)}` };
      }),
    );
  expect(calls.length).toBeGreaterThanOrEqual(14);
  return calls;
}

/** A valid body for each write, so that only the module can refuse it. */
function bodyFor(method: string, url: string, ids: { warehouseId: string; variantId: string; productId: string }): Record<string, unknown> | undefined {
  if (method === 'GET' || method === 'DELETE') return undefined;
  if (url.endsWith('/adjust')) return { variantId: ids.variantId, warehouseId: ids.warehouseId, delta: 1, reason: 'manual_adjust' };
  if (url.endsWith('/variants')) return { productId: ids.productId, name: 'Green' };
  return { name: 'Renamed' };
}

describe('the fulfillment module switch', () => {
  it('answers 409 fulfillment_module_disabled on every inventory route while the module is off, writing nothing', async () => {
    const ws = await t.ctx.createWorkspace();
    const product = await createProduct(t.api.baseUrl, ws.secretKey, { name: 'Mug', type: 'physical', weight: 300 });
    const ids = { warehouseId: 'wh_01JD4X7V1QZ8N6Y3K2M5P9R0TS', variantId: 'var_01JD4X7V1QZ8N6Y3K2M5P9R0TS', productId: product.id };
    const before = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    for (const { method, url } of await inventoryCalls(ids)) {
      const res = await http(t.api.baseUrl, method, `${url}${url.endsWith('/stock') ? `?variantId=${ids.variantId}` : ''}`, { key: ws.secretKey, body: bodyFor(method, url, ids) });
      expect([method, url, res.status, (res.body.error as { code?: string } | null)?.code]).toEqual([method, url, 409, 'fulfillment_module_disabled']);
    }
    // The refusal comes first: a body that would be invalid is still told about the module.
    expectError(await http(t.api.baseUrl, 'POST', `${INVENTORY}/warehouses`, { key: ws.secretKey, body: { bogus: true } }), 409, 'fulfillment_module_disabled');
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(before);
  });

  it('keeps the data while off and resumes when switched on again; other workspaces are not affected', async () => {
    const ws = await t.ctx.createWorkspace();
    const neighbour = await t.ctx.createWorkspace();
    await switchFulfillment(t.api.baseUrl, ws.secretKey, true);
    await switchFulfillment(t.api.baseUrl, neighbour.secretKey, true);
    const product = await createProduct(t.api.baseUrl, ws.secretKey, { name: 'Mug', type: 'physical', weight: 300 });
    const warehouse = await createWarehouse(t.api.baseUrl, ws.secretKey);
    const variant = await createVariant(t.api.baseUrl, ws.secretKey, product.id);
    await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: warehouse.id, delta: 8 });
    const stocked = await stockOf(t.api.baseUrl, ws.secretKey, variant.id);

    await switchFulfillment(t.api.baseUrl, ws.secretKey, false);
    const kept = await inventorySnapshot(t.ctx.sequelize, ws.accountId);
    const ids = { warehouseId: warehouse.id, variantId: variant.id, productId: product.id };
    for (const { method, url } of await inventoryCalls(ids)) {
      const res = await http(t.api.baseUrl, method, `${url}${url.endsWith('/stock') ? `?variantId=${variant.id}` : ''}`, { key: ws.secretKey, body: bodyFor(method, url, ids) });
      expect([method, url, res.status]).toEqual([method, url, 409]);
    }
    // The live environment shares the workspace's switch.
    expectError(await http(t.api.baseUrl, 'GET', `${INVENTORY}/warehouses`, { key: ws.liveSecretKey }), 409, 'fulfillment_module_disabled');
    expect(await inventorySnapshot(t.ctx.sequelize, ws.accountId)).toEqual(kept);
    expect((await http(t.api.baseUrl, 'GET', `${INVENTORY}/warehouses`, { key: neighbour.secretKey })).status).toBe(200);

    await switchFulfillment(t.api.baseUrl, ws.secretKey, true);
    expect(await stockOf(t.api.baseUrl, ws.secretKey, variant.id)).toEqual(stocked);
    const m = await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: warehouse.id, delta: -3 });
    expect(m.balance).toBe(5);
  });

  it('is seen by another API process within moments of the switch (its cached flags are dropped)', async () => {
    const ws = await t.ctx.createWorkspace();
    const other = await t.ctx.startApi();
    await switchFulfillment(t.api.baseUrl, ws.secretKey, true);
    const status = async () => (await http(other.baseUrl, 'GET', `${INVENTORY}/warehouses`, { key: ws.secretKey })).status;
    await waitFor(async () => (await status()) === 200, { timeoutMs: 5_000 });
    await switchFulfillment(t.api.baseUrl, ws.secretKey, false);
    await waitFor(async () => (await status()) === 409, { timeoutMs: 5_000 });
  });
});
