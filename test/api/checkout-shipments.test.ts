import { CheckoutSession, Delivery, Shipment } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { deliveryStep, createCheckoutFulfillment } from '../../domain/checkout/fulfillment';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { loadConfig, requireEncryptionKey } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import { checkoutApiEnv } from '../helpers/checkout';
import { useTestApi } from '../helpers/context';
import { expectError } from '../helpers/expect';
import { switchFulfillment } from '../helpers/inventory';
import { buyerPost, createProduct } from '../helpers/storefront';

// A physical line of a session that names its courier ships: its delivery is a `shipment` with the shipment's id
// (docs/decisions/shipping.md). Without a courier, or with the module off, it stays `manual`.
const t = useTestApi(checkoutApiEnv());
const config = loadConfig(process.env);
const fulfillment = () => createCheckoutFulfillment({ sequelize: t.ctx.sequelize, config, box: createCryptoBox(requireEncryptionKey(config)) });

const address = { name: 'Budi', line1: 'Jl. Sudirman 1', city: 'Jakarta', country: 'ID', postalCode: '10210' };

async function shop(moduleOn: boolean): Promise<{ ws: CreatedWorkspace; tenant: Tenant; slug: string }> {
  const ws = await t.ctx.createWorkspace();
  if (moduleOn) await switchFulfillment(t.api.baseUrl, ws.secretKey, true);
  const product = await createProduct(t.api.baseUrl, ws.secretKey, { name: 'Mug', type: 'physical', weight: 300, price: 10, currency: 'USD' });
  return { ws, tenant: { accountId: ws.accountId, environment: 'test' }, slug: String(product.slug) };
}

const buyNow = (s: { ws: CreatedWorkspace; slug: string }, metadata: Record<string, string>) =>
  buyerPost<{ data: { checkoutSessionId: string } }>(
    t.api.baseUrl,
    `/api/v1/storefront/public/${s.ws.slug}/${s.slug}/checkout`,
    { email: 'buyer@example.com', shippingAddress: address, metadata },
    { key: s.ws.publishableKey },
  );

/** The merchant confirmed; the workflow's delivery step for line 1 runs (here directly, as its activity does). */
async function completeAndDeliver(tenant: Tenant, sessionId: string): Promise<Delivery> {
  await CheckoutSession.update({ status: 'completed', paymentMethod: 'va', paidAt: new Date(), completedAt: new Date() }, { where: { id: sessionId } });
  await fulfillment().runStep(tenant, sessionId, deliveryStep('1'));
  return (await Delivery.findOne({ where: { checkoutSessionId: sessionId } }))!;
}

describe('shipments at checkout completion', () => {
  it('ships a physical line whose session names a courier: one shipment delivery, once', async () => {
    const s = await shop(true);
    const created = await buyNow(s, { courierCode: 'jne', courierService: 'reg' });
    expect(created.status).toBe(201);
    const delivery = await completeAndDeliver(s.tenant, created.body.data.checkoutSessionId);
    expect(delivery.kind).toBe('shipment');
    const shipment = await Shipment.findByPk(delivery.shipmentId!);
    expect(shipment).toMatchObject({ accountId: s.ws.accountId, courierCode: 'jne', courierServiceCode: 'reg' });
    expect(await fulfillment().runStep(s.tenant, created.body.data.checkoutSessionId, deliveryStep('1'))).toBe('already_applied');
    expect(await Shipment.count({ where: { accountId: s.ws.accountId } })).toBe(1);
  });

  it('keeps the line manual without a courier, or with the fulfillment module off', async () => {
    const without = await shop(true);
    const a = await buyNow(without, {});
    expect((await completeAndDeliver(without.tenant, a.body.data.checkoutSessionId)).kind).toBe('manual');
    const off = await shop(false);
    const b = await buyNow(off, { courierCode: 'jne', courierService: 'reg' });
    expect((await completeAndDeliver(off.tenant, b.body.data.checkoutSessionId)).kind).toBe('manual');
    expect(await Shipment.count({ where: { accountId: [without.ws.accountId, off.ws.accountId] } })).toBe(0);
  });

  it('refuses a courier or service the partner does not offer with 400 VALIDATION_ERROR, writing no session', async () => {
    const s = await shop(true);
    expectError(await buyNow(s, { courierCode: 'nope', courierService: 'reg' }), 400, 'VALIDATION_ERROR');
    expectError(await buyNow(s, { courierCode: 'jne', courierService: 'nope' }), 400, 'VALIDATION_ERROR');
    expect(await CheckoutSession.count({ where: { accountId: s.ws.accountId } })).toBe(0);
  });
});
