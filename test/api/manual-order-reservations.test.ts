import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { http, useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { adjustStock, createVariant, createWarehouse, expectLogMatchesRow, stockOf, switchFulfillment, type VariantDto, type WarehouseDto } from '../helpers/inventory';
import { buyerPost, createProduct } from '../helpers/storefront';

// Manual orders hold stock like checkout sessions (docs/decisions/inventory.md, Reservations): reserved when the
// buyer orders, released when the merchant cancels, committed when the merchant confirms the payment.
const t = useTestApi({ TEMPORAL_TASK_QUEUE: `manual-order-reservations-${process.pid}` });

interface Shop {
  ws: CreatedWorkspace;
  main: WarehouseDto;
  variant: VariantDto;
  productSlug: string;
}

async function shop(stock: number): Promise<Shop> {
  const ws = await t.ctx.createWorkspace();
  await switchFulfillment(t.api.baseUrl, ws.secretKey, true);
  const main = await createWarehouse(t.api.baseUrl, ws.secretKey, { name: 'Main' });
  const product = await createProduct(t.api.baseUrl, ws.secretKey, { name: 'Mug', type: 'physical', weight: 300, price: 10, currency: 'USD' });
  const variant = await createVariant(t.api.baseUrl, ws.secretKey, product.id, { name: 'Blue' });
  await adjustStock(t.api.baseUrl, ws.secretKey, { variantId: variant.id, warehouseId: main.id, delta: stock, reason: 'initial_stock' });
  return { ws, main, variant, productSlug: String(product.slug) };
}

const order = (s: Shop, quantity: number) =>
  buyerPost<{ data: { id: string } }>(
    t.api.baseUrl,
    `/api/v1/storefront/public/${s.ws.slug}/manual-checkout`,
    { email: 'buyer@example.com', productSlug: s.productSlug, variantId: s.variant.id, quantity, shippingAddress: { name: 'Budi', line1: 'Jl. Sudirman 1', city: 'Jakarta', country: 'ID' } },
    { key: s.ws.publishableKey },
  );

const patch = (s: Shop, id: string, body: Record<string, unknown>) => http(t.api.baseUrl, 'PATCH', `/api/v1/manual-orders/${id}`, { key: s.ws.secretKey, body });

async function mainRow(s: Shop) {
  const row = (await stockOf(t.api.baseUrl, s.ws.secretKey, s.variant.id)).find((r) => r.warehouseId === s.main.id)!;
  return { available: row.available, reserved: row.reserved };
}

describe('manual-order stock holds', () => {
  it('reserves at order time and refuses an order the stock cannot cover with 409 INSUFFICIENT_STOCK, writing no order', async () => {
    const s = await shop(3);
    const placed = await order(s, 2);
    expect(placed.status).toBe(201);
    expect(await mainRow(s)).toEqual({ available: 1, reserved: 2 });
    const short = await order(s, 2);
    expectError(short, 409, 'INSUFFICIENT_STOCK');
    const list = await http<{ data: unknown[] }>(t.api.baseUrl, 'GET', '/api/v1/manual-orders', { key: s.ws.secretKey });
    expect(list.body.data).toHaveLength(1);
    await expectLogMatchesRow(t.ctx.sequelize, s.variant.id, s.main.id);
  });

  it('releases the hold when the merchant cancels, once', async () => {
    const s = await shop(3);
    const placed = await order(s, 2);
    expect((await patch(s, placed.body.data.id, { paymentStatus: 'canceled' })).status).toBe(200);
    expect(await mainRow(s)).toEqual({ available: 3, reserved: 0 });
    expectError(await patch(s, placed.body.data.id, { paymentStatus: 'canceled' }), 409, 'INVALID_STATE');
    expect(await mainRow(s)).toEqual({ available: 3, reserved: 0 });
    await expectLogMatchesRow(t.ctx.sequelize, s.variant.id, s.main.id);
  });

  it('commits the hold when the merchant confirms the payment: reserved goes, available stays reduced', async () => {
    const s = await shop(3);
    const placed = await order(s, 2);
    expect((await patch(s, placed.body.data.id, { paymentStatus: 'payment_confirmed' })).status).toBe(200);
    expect(await mainRow(s)).toEqual({ available: 1, reserved: 0 });
    await expectLogMatchesRow(t.ctx.sequelize, s.variant.id, s.main.id);
  });
});
