import { CheckoutSession, Delivery, DiscountCode, License } from '../../db/models';
import { expireCheckoutIfOpen } from '../../domain/checkout/expiry';
import { createCheckoutFulfillment, planCheckoutFulfillment } from '../../domain/checkout/fulfillment';
import { DEFAULT_DOWNLOAD_LIMIT } from '../../domain/checkout/fulfillment-delivery';
import { loadConfig, requireEncryptionKey } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import { insertCheckoutSessionRow, lineOf } from '../fixtures/checkout';
import { appliedSteps, countRows, eventsOfSession, insertCappedDiscount, insertSellableProduct } from '../fixtures/fulfillment';
import { newTenant } from '../fixtures/workspaces';
import { createTestContext, type TestContext } from '../helpers/context';

let ctx: TestContext;
const config = loadConfig(process.env);
let fulfillment: ReturnType<typeof createCheckoutFulfillment>;

beforeAll(async () => {
  ctx = await createTestContext();
  fulfillment = createCheckoutFulfillment({ sequelize: ctx.sequelize, config, box: createCryptoBox(requireEncryptionKey(config)) });
});
afterAll(() => ctx.close());

const line = (productId: string | null, lineKey: string) => ({ ...lineOf(productId ?? 'none', 500, 1, lineKey), productId });

describe('the fulfillment plan', () => {
  it('counts the discount first, delivers each product line, credits, credits the referral, then announces, e-mails and closes', () => {
    expect(planCheckoutFulfillment({ discountId: 'disc_1', referralCode: 'FRIEND', lineItems: [line('prod_a', 'a'), line(null, 'fee'), line('prod_b', 'b')] })).toEqual([
      'discount',
      'delivery:a',
      'delivery:b',
      'balance',
      'referral',
      'event:checkout.completed',
      'email:receipt',
      'fulfilled',
    ]);
    expect(planCheckoutFulfillment({ discountId: null, referralCode: null, lineItems: [] })).toEqual(['balance', 'event:checkout.completed', 'email:receipt', 'fulfilled']);
  });
});

describe('expiry at the deadline', () => {
  it('expires an open session only once its expiresAt has passed, under the row lock, stamping expiredAt', async () => {
    const tenant = await newTenant(ctx);
    const session = await insertCheckoutSessionRow(ctx.sequelize, tenant);
    const before = new Date(session.expiresAt.getTime() - 1);
    expect(await expireCheckoutIfOpen(ctx.sequelize, tenant, session.id, before)).toBe('open');
    expect(await CheckoutSession.findByPk(session.id)).toMatchObject({ status: 'open', expiredAt: null });

    expect(await expireCheckoutIfOpen(ctx.sequelize, tenant, session.id, session.expiresAt)).toBe('expired');
    expect(await CheckoutSession.findByPk(session.id)).toMatchObject({ status: 'expired', expiredAt: session.expiresAt });
  });

  it.each(['pending_review', 'completed'] as const)('leaves a %s session as it is past its expiresAt', async (status) => {
    const tenant = await newTenant(ctx);
    const session = await insertCheckoutSessionRow(ctx.sequelize, tenant, { status });
    const later = new Date(session.expiresAt.getTime() + 60_000);
    expect(await expireCheckoutIfOpen(ctx.sequelize, tenant, session.id, later)).toBe(status);
    expect(await CheckoutSession.findByPk(session.id)).toMatchObject({ status, expiredAt: null });
  });

  it('answers for the own workspace only: another workspace’s session is not found', async () => {
    const [owner, other] = [await newTenant(ctx), await newTenant(ctx)];
    const session = await insertCheckoutSessionRow(ctx.sequelize, owner);
    await expect(expireCheckoutIfOpen(ctx.sequelize, other, session.id, session.expiresAt)).rejects.toThrow(/does not exist/);
    expect((await CheckoutSession.findByPk(session.id))!.status).toBe('open');
  });
});

describe('fulfillment steps', () => {
  it.each(['open', 'pending_review', 'expired'] as const)('refuse a session that is %s and write nothing', async (status) => {
    const tenant = await newTenant(ctx);
    const product = await insertSellableProduct(ctx.sequelize, tenant, { licenseEnabled: true });
    const session = await insertCheckoutSessionRow(ctx.sequelize, tenant, { status, lineItems: [lineOf(product.id)] });
    await expect(fulfillment.plan(tenant, session.id)).rejects.toThrow(`is ${status}`);
    for (const step of ['delivery:1', 'balance', 'event:checkout.completed']) {
      await expect(fulfillment.runStep(tenant, session.id, step)).rejects.toThrow(`is ${status}`);
    }
    expect(await appliedSteps(ctx.sequelize, session.id)).toEqual([]);
    expect(await Delivery.count({ where: { checkoutSessionId: session.id } })).toBe(0);
    expect(await License.count({ where: { checkoutSessionId: session.id } })).toBe(0);
    expect(await countRows(ctx.sequelize, 'balance_transactions', 'source_id', session.id)).toBe(0);
    expect(await countRows(ctx.sequelize, 'settlement_dues', 'checkout_session_id', session.id)).toBe(0);
    expect(await eventsOfSession(ctx.sequelize, session.id)).toEqual([]);
  });

  it('apply once under concurrent and repeated tries: one delivery, one licence, one product.purchased, one credit and its due mark', async () => {
    const tenant = await newTenant(ctx);
    const product = await insertSellableProduct(ctx.sequelize, tenant, { licenseEnabled: true, files: ['setup-1.0.exe', 'setup-2.0.exe'] });
    const session = await insertCheckoutSessionRow(ctx.sequelize, tenant, { status: 'completed', lineItems: [lineOf(product.id, 2500)] });
    for (const step of ['delivery:1', 'balance']) {
      const outcomes = await Promise.all(Array.from({ length: 5 }, () => fulfillment.runStep(tenant, session.id, step)));
      expect(outcomes.sort()).toEqual(['already_applied', 'already_applied', 'already_applied', 'already_applied', 'applied']);
      expect(await fulfillment.runStep(tenant, session.id, step)).toBe('already_applied');
    }
    const deliveries = await Delivery.findAll({ where: { checkoutSessionId: session.id } });
    const licences = await License.findAll({ where: { checkoutSessionId: session.id } });
    expect(licences).toHaveLength(1);
    // A licensed product with files: the download, carrying the key too.
    expect(deliveries.map((d) => ({ kind: d.kind, fileId: d.fileId, downloadCount: d.downloadCount, downloadLimit: d.downloadLimit, licenseKey: d.licenseKey }))).toEqual([
      { kind: 'download', fileId: product.fileIds[1], downloadCount: 0, downloadLimit: DEFAULT_DOWNLOAD_LIMIT, licenseKey: licences[0]!.key },
    ]);
    expect((await eventsOfSession(ctx.sequelize, session.id)).map((e) => e.type)).toEqual(['product.purchased']);
    expect(await countRows(ctx.sequelize, 'balance_transactions', 'source_id', session.id)).toBe(1);
    // One due mark for the settlement sweep, with the one credit.
    expect(await countRows(ctx.sequelize, 'settlement_dues', 'checkout_session_id', session.id)).toBe(1);
  });

  it('past maxUsesTotal keep the payment and record the discount as not applied, without counting a use', async () => {
    const tenant = await newTenant(ctx);
    const discount = await insertCappedDiscount(tenant, 1);
    const sessions = await Promise.all(
      [0, 1].map(() => insertCheckoutSessionRow(ctx.sequelize, tenant, { status: 'completed', amount: 900, discount: { id: discount.id, code: discount.code, amount: 100 } })),
    );
    const outcomes = await Promise.all(sessions.map((s) => fulfillment.runStep(tenant, s.id, 'discount')));
    expect(outcomes).toEqual(['applied', 'applied']);
    const applied = await Promise.all(sessions.map(async (s) => (await CheckoutSession.findByPk(s.id))!.discountApplied));
    expect([...applied].sort()).toEqual([false, true]);
    expect((await DiscountCode.findByPk(discount.id))!.usesTotal).toBe(1);
    expect(await countRows(ctx.sequelize, 'discount_redemptions', 'discount_id', discount.id)).toBe(1);
    // A retry of the refused one does not flip it to applied.
    const refused = sessions[applied.indexOf(false)]!;
    expect(await fulfillment.runStep(tenant, refused.id, 'discount')).toBe('already_applied');
    expect((await CheckoutSession.findByPk(refused.id))!.discountApplied).toBe(false);
  });
});
