/** The demo store `npm start` seeds, on the suite's real PostgreSQL and Temporal, through the real API. */
import { Account, BillingPlan, DiscountCode, Product, ProductFile, StockMovement, Variant, Warehouse } from '../../db/models';
import { createUserService } from '../../domain/users';
import { createBuyNowLink, DEMO_DIGITAL_SLUG, DEMO_DISCOUNT_CODE, DEMO_PHYSICAL_SLUG, ensureDemoStore, type DemoStoreDeps } from '../../scripts/lib/demo-store';
import { http, useTestApi } from '../helpers/context';

jest.setTimeout(120_000);

const t = useTestApi();

async function workspaceWithOwner() {
  const ws = await t.ctx.createWorkspace({ plan: 'pro' });
  await createUserService({ sequelize: t.ctx.sequelize }).create({ email: `owner-${ws.accountId.toLowerCase()}@example.com`, workspace: ws.accountId, role: 'owner' });
  return ws;
}

const deps = (): DemoStoreDeps => ({ sequelize: t.ctx.sequelize, config: t.ctx.config, temporal: t.ctx.temporal });

/** Every seeded row of the workspace's test environment, as comparable ids. */
async function seededRows(accountId: string) {
  const where = { accountId, environment: 'test' as const };
  const ids = async (rows: Promise<{ id: string }[]>) => (await rows).map((r) => r.id).sort();
  return {
    products: await ids(Product.findAll({ where })),
    files: await ids(ProductFile.findAll({ where })),
    variants: await ids(Variant.findAll({ where })),
    warehouses: await ids(Warehouse.findAll({ where })),
    movements: await ids(StockMovement.findAll({ where })),
    plans: await ids(BillingPlan.findAll({ where })),
    discounts: await ids(DiscountCode.findAll({ where })),
  };
}

describe('demo store seed', () => {
  it('seeds once: a second run finds everything and makes nothing', async () => {
    const ws = await workspaceWithOwner();
    const first = await ensureDemoStore(deps(), ws.accountId);
    expect(first.created).toEqual([
      'fulfillment module on',
      'storefront branding',
      'digital product',
      'digital product file',
      'physical product',
      'warehouse',
      'variant MUG-WHITE',
      'stock of MUG-WHITE',
      'variant MUG-BLACK',
      'stock of MUG-BLACK',
      'plan',
      'discount code',
    ]);
    const rows = await seededRows(ws.accountId);
    expect({ ...rows, products: rows.products.length, files: rows.files.length, variants: rows.variants.length, movements: rows.movements.length }).toMatchObject({
      products: 2,
      files: 1,
      variants: 2,
      movements: 2,
      warehouses: [expect.stringMatching(/^wh_/)],
      plans: [expect.stringMatching(/^plan_/)],
      discounts: [expect.any(String)],
    });

    const second = await ensureDemoStore(deps(), ws.accountId);
    expect(second.created).toEqual([]);
    expect(await seededRows(ws.accountId)).toEqual(rows);
    // Nothing went to the live environment.
    expect(await Product.count({ where: { accountId: ws.accountId, environment: 'live' } })).toBe(0);
  });

  it('completes a store seeded part of the way, without a second copy of what is there', async () => {
    const ws = await workspaceWithOwner();
    const made = await http<{ data: { id: string } }>(t.api.baseUrl, 'POST', '/api/v1/storefront/products', {
      key: ws.secretKey,
      body: { name: 'My own guide', slug: DEMO_DIGITAL_SLUG, price: 10, currency: 'IDR', type: 'digital' },
    });
    expect(made.status).toBe(201);
    const run = await ensureDemoStore(deps(), ws.accountId);
    expect(run.created).not.toContain('digital product');
    expect(run.created).toContain('digital product file');
    const products = await Product.findAll({ where: { accountId: ws.accountId, environment: 'test' } });
    expect(products.map((p) => p.slug).sort()).toEqual([DEMO_PHYSICAL_SLUG, DEMO_DIGITAL_SLUG]);
    // The merchant's own product keeps its name: the seed only adds what is missing.
    expect(products.find((p) => p.slug === DEMO_DIGITAL_SLUG)!.name).toBe('My own guide');
    expect(await ProductFile.count({ where: { productId: made.body.data.id } })).toBe(1);
    expect((await ensureDemoStore(deps(), ws.accountId)).created).toEqual([]);
  });

  it('shows on the storefront with the publishable test key, and the buy-now link opens a checkout session', async () => {
    const ws = await workspaceWithOwner();
    await ensureDemoStore(deps(), ws.accountId);
    const account = await Account.findByPk(ws.accountId);

    const landing = await http<{
      data: { merchant: { brandColor: string }; products: { slug: string; type: string; hasVariants?: boolean }[]; discountCodes: { code: string }[] };
    }>(t.api.baseUrl, 'GET', `/api/v1/storefront/public/${account!.slug}`, { key: ws.publishableKey });
    expect(landing.status).toBe(200);
    expect(landing.body.data.merchant.brandColor).toBe('#1f6feb');
    expect(landing.body.data.products.map((p) => p.slug).sort()).toEqual([DEMO_PHYSICAL_SLUG, DEMO_DIGITAL_SLUG]);
    expect(landing.body.data.discountCodes.map((d) => d.code)).toEqual([DEMO_DISCOUNT_CODE]);

    const detail = await http<{ data: { files: { fileName: string }[]; licenseEnabled: boolean } }>(
      t.api.baseUrl,
      'GET',
      `/api/v1/storefront/public/${account!.slug}/${DEMO_DIGITAL_SLUG}`,
      { key: ws.publishableKey },
    );
    expect(detail.status).toBe(200);
    expect(detail.body.data.files.map((f) => f.fileName)).toEqual(['starter-guide.md']);
    const mug = await http<{ data: { variants: { sku: string }[] } }>(t.api.baseUrl, 'GET', `/api/v1/storefront/public/${account!.slug}/${DEMO_PHYSICAL_SLUG}`, {
      key: ws.publishableKey,
    });
    expect(mug.body.data.variants.map((v) => v.sku).sort()).toEqual(['MUG-BLACK', 'MUG-WHITE']);

    const hostedUrl = await createBuyNowLink(t.api.baseUrl, ws.publishableKey, account!.slug!);
    const sessionId = /\/checkout\/(cs_[0-9A-Z]{26})$/.exec(hostedUrl)?.[1];
    expect(sessionId).toBeDefined();
    const page = await fetch(`${t.api.baseUrl}/checkout/${sessionId}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('The Starter Guide');
    const session = await http<{ data: { status: string; customerEmail: string } }>(t.api.baseUrl, 'GET', `/api/v1/payment/checkout-sessions/${sessionId}`, {
      key: ws.secretKey,
    });
    expect(session.body.data).toMatchObject({ status: 'open', customerEmail: 'buyer@example.com' });
  });
});
