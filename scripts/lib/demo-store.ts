/**
 * The demo store `npm start` seeds into the demo workspace's test environment, so the storefront and the hosted
 * checkout have something to show on the first start: a digital product with a file and licences, a physical
 * product with two variants in stock, a subscription plan, a public discount code and the storefront's branding.
 *
 * Everything goes through the domain services, acting as the workspace's owner (as the dashboard does). Each item
 * is found by its natural key first (product slug, variant SKU, warehouse name, plan name, discount code) and only
 * what is missing is made, so a restart changes nothing and a start cut short half-way completes the rest. Items
 * the merchant changed or archived since are left as they are.
 */
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { Account, BillingPlan, DiscountCode, Product, ProductFile, StockMovement, Variant, Warehouse } from '../../db/models';
import type { AuthContext } from '../../domain/auth-context';
import { createServices, type Services } from '../../domain/services';
import { findOwner } from '../../domain/users';
import { createStarters } from '../../domain/workflow-starters';
import type { Config } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import { requireKeyRing } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { createStorage } from '../../lib/storage';

export const DEMO_DIGITAL_SLUG = 'starter-guide';
export const DEMO_PHYSICAL_SLUG = 'enamel-mug';
export const DEMO_DISCOUNT_CODE = 'WELCOME10';
export const DEMO_PLAN_NAME = 'Pro membership';
const DEMO_WAREHOUSE = 'Main warehouse';
const DEMO_FILE_NAME = 'starter-guide.md';
const DEMO_STOCK = 25;
const MUG_VARIANTS = [
  { sku: 'MUG-WHITE', name: 'White', priceDelta: 0 },
  { sku: 'MUG-BLACK', name: 'Black', priceDelta: 5000 },
];

const GUIDE_TEXT = `# The Starter Guide

Thank you for buying from the demo store. This file is what the buyer downloads after a completed checkout:
the download link comes in the receipt e-mail, on the hosted checkout page and on the order page.
`;

export interface DemoStoreDeps {
  sequelize: Sequelize;
  /** The stack's configuration, ENCRYPTION_KEY and FILE_STORAGE_DIR included. */
  config: Config;
  /** A client with the payload codec (few seed steps start workflows; a durable start is recorded either way). */
  temporal: Client;
}

export interface DemoStore {
  /** What this run made, by item; empty when everything was already there. */
  created: string[];
  digitalProductSlug: string;
}

/** A multipart/form-data upload of one small file, as the API hands the product file service a request. */
function uploadRequest(fileName: string, mimeType: string, content: string): IncomingMessage {
  const boundary = 'demo-store-seed-boundary';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: ${mimeType}\r\n\r\n`),
    Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const request = Readable.from([body]) as Readable & Partial<IncomingMessage>;
  return Object.assign(request, { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, complete: true }) as IncomingMessage;
}

/** The workspace's owner acting on its test environment, with a secret key's reach (as a dashboard session). */
async function ownerContext(accountId: string): Promise<AuthContext> {
  const account = await Account.findByPk(accountId);
  if (!account) throw new Error(`demo store: workspace ${accountId} not found`);
  const owner = await findOwner(accountId);
  if (!owner) throw new Error(`demo store: workspace ${accountId} has no owner to act as`);
  return {
    accountId,
    environment: 'test',
    apiKeyId: null,
    userId: owner.userId,
    access: 'secret',
    account: { id: account.id, name: account.name, slug: account.slug, plan: account.plan, fulfillmentEnabled: account.fulfillmentEnabled, paymentEnabled: account.paymentEnabled },
  };
}

export async function ensureDemoStore(deps: DemoStoreDeps, accountId: string): Promise<DemoStore> {
  const { sequelize, config, temporal } = deps;
  const services: Services = createServices({
    sequelize,
    config,
    logger: createLogger(config.LOG_LEVEL, 'demo-store'),
    box: createCryptoBox(requireKeyRing(config)),
    storage: createStorage(config),
    starters: createStarters(temporal, { taskQueue: config.TEMPORAL_TASK_QUEUE }),
    temporal,
  });
  const created: string[] = [];
  const made = async <T>(what: string, make: () => Promise<T>): Promise<T> => {
    const result = await make();
    created.push(what);
    return result;
  };

  // Variants and stock need the fulfillment module; the switch is the workspace's, both environments.
  const account = await Account.findByPk(accountId);
  if (account && !account.fulfillmentEnabled) await made('fulfillment module on', () => services.modules.set(accountId, { module: 'fulfillment', enabled: true }));
  const auth = await ownerContext(accountId);
  const tenant = { accountId, environment: auth.environment };

  // Branding: only while none is set, so a merchant's own is never overwritten.
  if (!account?.brandColor) {
    await made('storefront branding', () =>
      services.storefrontSettings.update(auth, {
        description: 'A demo store seeded by `npm start`: an e-book with licences, a mug in two colours, a membership plan.',
        brandColor: '#1f6feb',
        // Shown on the hosted checkout page while a bank transfer (`va`) awaits the merchant's confirmation.
        manualPayment: { bankName: 'Demo Bank', accountNumber: '0000 1234 5678', accountHolder: 'Demo Store' },
      }),
    );
  }

  // The digital product, its file and licences (a licence is issued per purchased line at fulfillment).
  let guide = await Product.findOne({ where: { ...tenant, slug: DEMO_DIGITAL_SLUG } });
  if (!guide) {
    const dto = await made('digital product', () =>
      services.products.create(auth, {
        name: 'The Starter Guide',
        slug: DEMO_DIGITAL_SLUG,
        description: 'A short guide in Markdown, sold with a licence key (3 activations).',
        price: 149000,
        currency: 'IDR',
        type: 'digital',
        published: true,
        licenseEnabled: true,
        maxActivations: 3,
        tags: ['guide'],
      }),
    );
    guide = await Product.findByPk(dto.id);
  }
  if (guide && !guide.archived && (await ProductFile.count({ where: { ...tenant, productId: guide.id } })) === 0) {
    await made('digital product file', () => services.productFiles.upload(auth, guide.id, uploadRequest(DEMO_FILE_NAME, 'text/markdown', GUIDE_TEXT)));
  }

  // The physical product, its variants, a warehouse and stock of each variant.
  let mug = await Product.findOne({ where: { ...tenant, slug: DEMO_PHYSICAL_SLUG } });
  if (!mug) {
    const dto = await made('physical product', () =>
      services.products.create(auth, {
        name: 'Enamel Mug',
        slug: DEMO_PHYSICAL_SLUG,
        description: 'A 350 ml enamel mug, shipped from the main warehouse.',
        price: 85000,
        currency: 'IDR',
        type: 'physical',
        weight: 350,
        published: true,
        tags: ['mug'],
      }),
    );
    mug = await Product.findByPk(dto.id);
  }
  let warehouse = await Warehouse.findOne({ where: { ...tenant, name: DEMO_WAREHOUSE } });
  if (!warehouse) {
    const dto = await made('warehouse', () => services.warehouses.create(auth, { name: DEMO_WAREHOUSE, city: 'Jakarta' }));
    warehouse = await Warehouse.findByPk(dto.id);
  }
  if (mug && !mug.archived && warehouse && !warehouse.archived) {
    for (const spec of MUG_VARIANTS) {
      let variant = await Variant.findOne({ where: { ...tenant, productId: mug.id, sku: spec.sku } });
      if (!variant) {
        const dto = await made(`variant ${spec.sku}`, () => services.variants.create(auth, { productId: mug.id, ...spec }));
        variant = await Variant.findByPk(dto.id);
      }
      if (variant && !variant.archived && (await StockMovement.count({ where: { ...tenant, variantId: variant.id } })) === 0) {
        await made(`stock of ${spec.sku}`, () =>
          services.stock.adjust(auth, { variantId: variant.id, warehouseId: warehouse.id, delta: DEMO_STOCK, reason: 'initial_stock' }),
        );
      }
    }
  }

  if (!(await BillingPlan.findOne({ where: { ...tenant, name: DEMO_PLAN_NAME } }))) {
    await made('plan', () =>
      services.plans.create(auth, {
        name: DEMO_PLAN_NAME,
        description: 'Monthly membership, 7-day trial',
        amount: 99000,
        currency: 'IDR',
        interval: 'monthly',
        intervalCount: 1,
        trialDays: 7,
        active: true,
      }),
    );
  }

  if (!(await DiscountCode.findOne({ where: { ...tenant, code: DEMO_DISCOUNT_CODE } }))) {
    await made('discount code', () =>
      services.discountCodes.create(auth, { code: DEMO_DISCOUNT_CODE, description: '10% off your first order', type: 'percent', value: 10, currency: 'IDR', public: true }),
    );
  }

  return { created, digitalProductSlug: DEMO_DIGITAL_SLUG };
}

/**
 * A buy-now checkout of the demo e-book, created as a buyer's storefront would (the demo's publishable test key,
 * through the running API): its hosted page is a ready checkout link. Sessions last a day, so each start makes one.
 */
export async function createBuyNowLink(apiBase: string, publishableKey: string, merchantSlug: string): Promise<string> {
  const response = await fetch(`${apiBase}/api/v1/storefront/public/${encodeURIComponent(merchantSlug)}/${DEMO_DIGITAL_SLUG}/checkout`, {
    method: 'POST',
    headers: { authorization: `Bearer ${publishableKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'buyer@example.com', name: 'Demo Buyer' }),
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await response.json()) as { data?: { hostedUrl?: string }; error?: { message?: string } };
  if (response.status !== 201 || !body.data?.hostedUrl) throw new Error(`buy-now answered ${response.status}: ${body.error?.message ?? 'no hostedUrl'}`);
  return body.data.hostedUrl;
}

/**
 * The banner's lines about the demo store: the storefront's address and a fresh buy-now link (without the
 * publishable key, whose value only the first start printed, how to make one instead).
 */
export async function demoStoreBanner(apiBase: string, merchantSlug: string, publishableKey: string | null): Promise<string[]> {
  const storefront = `${apiBase}/api/v1/storefront/public/${merchantSlug}`;
  let buyNow: string;
  if (!publishableKey) {
    buyNow = `(needs the publishable test key: POST ${storefront}/${DEMO_DIGITAL_SLUG}/checkout)`;
  } else {
    buyNow = await createBuyNowLink(apiBase, publishableKey, merchantSlug).catch((err: unknown) => `(could not create one: ${(err as Error).message})`);
  }
  return [
    `  Storefront     ${storefront}   (the test catalogue: send the publishable test key)`,
    `  Buy-now link   ${buyNow}   (hosted checkout of "${DEMO_DIGITAL_SLUG}")`,
  ];
}
