import { QueryTypes } from 'sequelize';
import { hashKey } from '../../lib/api-key-secrets';
import { requireEncryptionKey } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import type { CreatedWorkspace } from '../../domain/workspaces/service';
import { insertApiKeys } from '../fixtures/api-keys';
import { insertCredibilityItem } from '../fixtures/credibility';
import { insertDelivery } from '../fixtures/deliveries';
import { insertProduct, insertProductFile } from '../fixtures/products';
import { insertBlogPost } from '../fixtures/blog';
import { insertCheckoutSessionRow } from '../fixtures/checkout';
import { insertDiscountCode } from '../fixtures/discounts';
import { insertCustomer, insertPlanWithPrice } from '../fixtures/billing';
import { insertSubscriptionRow } from '../fixtures/subscriptions';
import { TestClock } from '../../db/models';
import { newId } from '../../lib/ids';
import { enableFulfillment, insertVariant, insertWarehouse } from '../fixtures/inventory';
import { insertInvoice } from '../fixtures/invoices';
import { insertBookedShipment, insertOrigin } from '../fixtures/shipping';
import { insertLicense } from '../fixtures/licenses';
import { insertManualOrder } from '../fixtures/manual-orders';
import { insertPayoutRow } from '../fixtures/payouts';
import { insertReferralLink } from '../fixtures/referrals';
import { insertDeliveryAttempt, insertWebhookEndpoint } from '../fixtures/webhooks';
import { http, useTestApi } from '../helpers/context';

// Every authenticated route with an id in its path, taken from the served OpenAPI document, is called with
// workspace A's ids by another workspace and by A's own other environment: each call must be a 404 that
// leaves all of A's rows as they were.

const t = useTestApi();

const METHODS = ['get', 'post', 'patch', 'delete'] as const;
type Method = (typeof METHODS)[number];
type OpenApi = { paths: Record<string, Partial<Record<Method, { security?: unknown[] }>>> };

/** One of each of A's resources, in its test environment. */
interface Owned {
  productId: string;
  fileId: string;
  apiKeyId: string;
  webhookEndpointId: string;
  /** An event in the delivery log of `webhookEndpointId`. */
  webhookEventId: string;
  portfolioItemId: string;
  testimonialId: string;
  certificationId: string;
  referralLinkId: string;
  discountCodeId: string;
  blogPostId: string;
  licenseKey: string;
  deliveryId: string;
  checkoutSessionId: string;
  customerId: string;
  planId: string;
  planPriceId: string;
  warehouseId: string;
  variantId: string;
  manualOrderId: string;
  invoiceId: string;
  payoutId: string;
  subscriptionId: string;
  testClockId: string;
  shipmentId: string;
}

interface Probe {
  params: (owned: Owned) => Record<string, string>;
  /** Every documented method, with a valid body (null: none), so that only the ownership check can refuse it. */
  methods: Partial<Record<Method, Record<string, unknown> | null>>;
  /** The 404 code the contract gives the path; RESOURCE_NOT_FOUND unless it says otherwise (warehouses: NOT_FOUND). */
  code?: 'NOT_FOUND';
}

/** A route added without an entry here fails the test: say which resource fills its ids. */
const PROBES: Record<string, Probe> = {
  '/v1/account/api-keys/{id}': { params: (o) => ({ id: o.apiKeyId }), methods: { delete: null } },
  '/v1/storefront/products/{id}': { params: (o) => ({ id: o.productId }), methods: { get: null, patch: { name: 'Taken over' }, delete: null } },
  '/v1/storefront/products/{id}/ai-generate': { params: (o) => ({ id: o.productId }), methods: { post: null } },
  '/v1/storefront/products/{id}/files': { params: (o) => ({ id: o.productId }), methods: { post: { fileName: 'planted.pdf', fileSize: 10 } } },
  '/v1/storefront/products/{id}/files/{fileId}': { params: (o) => ({ id: o.productId, fileId: o.fileId }), methods: { delete: null } },
  '/v1/portfolio/{id}': { params: (o) => ({ id: o.portfolioItemId }), methods: { get: null, patch: { title: 'Taken over' }, delete: null } },
  '/v1/testimonials/{id}': { params: (o) => ({ id: o.testimonialId }), methods: { get: null, patch: { quote: 'Taken over' }, delete: null } },
  '/v1/certifications/{id}': { params: (o) => ({ id: o.certificationId }), methods: { get: null, patch: { issuer: 'Taken over' }, delete: null } },
  '/v1/payment/webhook-endpoints/{id}': {
    params: (o) => ({ id: o.webhookEndpointId }),
    methods: { get: null, patch: { description: 'Taken over', rotateSecret: true }, delete: null },
  },
  '/v1/payment/webhook-endpoints/{id}/deliveries': { params: (o) => ({ id: o.webhookEndpointId }), methods: { get: null } },
  '/v1/payment/webhook-endpoints/{id}/deliveries/{eventId}/retry': { params: (o) => ({ id: o.webhookEndpointId, eventId: o.webhookEventId }), methods: { post: null } },
  '/v1/payment/webhook-endpoints/{id}/test': { params: (o) => ({ id: o.webhookEndpointId }), methods: { post: null } },
  '/v1/blog-posts/{id}': { params: (o) => ({ id: o.blogPostId }), methods: { get: null, patch: { title: 'Taken over' }, delete: null } },
  '/v1/discount-codes/{id}': { params: (o) => ({ id: o.discountCodeId }), methods: { get: null, patch: { description: 'Taken over' }, delete: null } },
  '/v1/referral-links/{id}': { params: (o) => ({ id: o.referralLinkId }), methods: { get: null, patch: { label: 'Taken over' }, delete: null } },
  '/v1/storefront/licenses/{key}': { params: (o) => ({ key: o.licenseKey }), methods: { get: null, delete: null } },
  '/v1/storefront/deliveries/{id}': { params: (o) => ({ id: o.deliveryId }), methods: { get: null } },
  // The buyer routes (public, pay, pixel-cookies) take no key: the session id alone is the buyer's capability.
  '/v1/payment/checkout-sessions/{id}': { params: (o) => ({ id: o.checkoutSessionId }), methods: { get: null } },
  '/v1/payment/checkout-sessions/{id}/refund': { params: (o) => ({ id: o.checkoutSessionId }), methods: { post: { amount: 100 } } },
  '/v1/payment/checkout-sessions/{id}/confirm': { params: (o) => ({ id: o.checkoutSessionId }), methods: { post: null } },
  '/v1/payment/customers/{id}': { params: (o) => ({ id: o.customerId }), methods: { get: null, patch: { name: 'Taken over' } } },
  '/v1/payment/plans/{id}': { params: (o) => ({ id: o.planId }), methods: { get: null, patch: { name: 'Taken over' }, delete: null } },
  '/v1/payment/plans/{id}/prices': { params: (o) => ({ id: o.planId }), methods: { post: { amount: 500, currency: 'IDR', interval: 'monthly' } } },
  '/v1/payment/plans/prices/{priceId}': { params: (o) => ({ priceId: o.planPriceId }), methods: { patch: { nickname: 'Taken over' } } },
  '/v1/inventory/warehouses/{id}': {
    params: (o) => ({ id: o.warehouseId }),
    methods: { get: null, patch: { name: 'Taken over', isDefault: true }, delete: null },
    code: 'NOT_FOUND',
  },
  '/v1/inventory/variants/{id}': { params: (o) => ({ id: o.variantId }), methods: { get: null, patch: { name: 'Taken over', isDefault: true }, delete: null } },
  '/v1/manual-orders/{id}': { params: (o) => ({ id: o.manualOrderId }), methods: { get: null, patch: { paymentStatus: 'payment_confirmed', merchantPaymentNote: 'Taken over' } } },
  '/v1/payment/invoices/{id}': { params: (o) => ({ id: o.invoiceId }), methods: { get: null } },
  '/v1/payment/invoices/{id}/pdf': { params: (o) => ({ id: o.invoiceId }), methods: { get: null } },
  '/v1/payment/invoices/{id}/html': { params: (o) => ({ id: o.invoiceId }), methods: { get: null } },
  // Open, so that a void would land if the ownership check let it through.
  '/v1/billing/invoices/{id}/void': { params: (o) => ({ id: o.invoiceId }), methods: { post: null } },
  '/v1/payouts/{id}': { params: (o) => ({ id: o.payoutId }), methods: { get: null } },
  // DELETE defaults to the deferred cancel: it would set cancelAtPeriodEnd if the ownership check let it through.
  '/v1/payment/subscriptions/{id}': { params: (o) => ({ id: o.subscriptionId }), methods: { get: null, patch: { status: 'paused' }, delete: null } },
  '/v1/payment/test-clocks/{id}': { params: (o) => ({ id: o.testClockId }), methods: { get: null, delete: null } },
  '/v1/payment/test-clocks/{id}/advance': { params: (o) => ({ id: o.testClockId }), methods: { post: { frozenTime: '2030-01-01T00:00:00Z' } } },
  '/v1/payouts/{id}/cancel': { params: (o) => ({ id: o.payoutId }), methods: { post: null } },
  '/v1/payouts/{id}/mark-in-transit': { params: (o) => ({ id: o.payoutId }), methods: { post: { reference: 'Taken over' } } },
  '/v1/payouts/{id}/mark-paid': { params: (o) => ({ id: o.payoutId }), methods: { post: { reference: 'Taken over' } } },
  '/v1/payouts/{id}/mark-failed': { params: (o) => ({ id: o.payoutId }), methods: { post: { failureReason: 'Taken over' } } },
  '/v1/shipping/shipments/{id}': { params: (o) => ({ id: o.shipmentId }), methods: { get: null } },
  '/v1/shipping/shipments/{id}/cancel': { params: (o) => ({ id: o.shipmentId }), methods: { post: { reason: 'Taken over' } } },
  '/v1/shipping/shipments/{id}/label': { params: (o) => ({ id: o.shipmentId }), methods: { get: null } },
};

interface Call {
  method: Method;
  /** The documented path, e.g. /v1/portfolio/{id}. */
  route: string;
  url: string;
  body: Record<string, unknown> | null;
  code: string;
}

/** The calls to make: one per documented method of every authenticated path with a parameter. */
function callsFor(doc: OpenApi, owned: Owned): Call[] {
  const calls: Call[] = [];
  for (const [route, operations] of Object.entries(doc.paths)) {
    if (!route.includes('{')) continue;
    for (const method of METHODS) {
      const operation = operations[method];
      // Routes a caller may use without a key (the public storefront) are scoped by slug, not by the key.
      if (!operation?.security?.length || operation.security.some((s) => Object.keys(s as object).length === 0)) continue;
      const probe = PROBES[route];
      if (!probe) throw new Error(`no fixture for path ${route}: add it to PROBES in test/api/cross-workspace.test.ts`);
      const body = probe.methods[method];
      if (body === undefined) throw new Error(`no fixture for ${method.toUpperCase()} ${route}: add the method to its PROBES entry`);
      const params = probe.params(owned);
      const url = `/api${route.replace(/\{(\w+)\}/g, (_, name: string) => {
        const value = params[name];
        if (!value) throw new Error(`PROBES entry for ${route} gives no value for {${name}}`);
        return value;
      })}`;
      calls.push({ method, route, url, body, code: probe.code ?? 'RESOURCE_NOT_FOUND' });
    }
  }
  return calls;
}

type Rows = Record<string, unknown>[];

/**
 * Every row the workspace holds, in every table with an account_id, plus its account row. The calling
 * key's own lastUsedAt is left out: using a key records that it was used.
 */
let tenantTables: string[] | undefined;

/** Every row of the workspace in every table with an `account_id`, read in one statement (two per probed call). */
async function snapshot(accountId: string, callerKey: string): Promise<Record<string, Rows>> {
  tenantTables ??= (
    await t.ctx.sequelize.query<{ table_name: string }>(
      `SELECT DISTINCT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'account_id' ORDER BY table_name`,
      { type: QueryTypes.SELECT },
    )
  ).map((r) => r.table_name);
  const callerHash = hashKey(callerKey);
  const selects = [`SELECT 'accounts' AS source, to_jsonb(a) AS row FROM accounts a WHERE id = :accountId`].concat(
    tenantTables.map((table) => `SELECT '${table}' AS source, to_jsonb(t) AS row FROM "${table}" t WHERE account_id = :accountId`),
  );
  const rows = await t.ctx.sequelize.query<{ source: string; row: Record<string, unknown> }>(selects.join(' UNION ALL '), {
    type: QueryTypes.SELECT,
    replacements: { accountId },
  });
  const result: Record<string, Rows> = Object.fromEntries(['accounts', ...tenantTables].map((table) => [table, [] as Rows]));
  for (const { source, row } of rows) result[source]!.push(row.key_hash === callerHash ? { ...row, last_used_at: '(the caller)' } : row);
  for (const table of Object.keys(result)) result[table]!.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return result;
}

let owner: CreatedWorkspace;
let owned: Owned;
let doc: OpenApi;

beforeAll(async () => {
  owner = await t.ctx.createWorkspace({ plan: 'pro' });
  const productId = await insertProduct(t.ctx.sequelize, owner);
  const [apiKeyId] = await insertApiKeys(owner, 1);
  const customerId = (await insertCustomer(owner)).id;
  const plans = await insertPlanWithPrice(owner);
  const webhookEndpoint = (await insertWebhookEndpoint(owner)).row;
  owned = {
    productId,
    fileId: (await insertProductFile(owner, productId)).id,
    apiKeyId: apiKeyId!,
    webhookEndpointId: webhookEndpoint.id,
    webhookEventId: (await insertDeliveryAttempt(webhookEndpoint, { status: 'retry_scheduled' })).eventId,
    portfolioItemId: await insertCredibilityItem(t.ctx.sequelize, 'portfolio_items', owner),
    testimonialId: await insertCredibilityItem(t.ctx.sequelize, 'testimonials', owner),
    certificationId: await insertCredibilityItem(t.ctx.sequelize, 'certifications', owner),
    referralLinkId: (await insertReferralLink(owner)).id,
    discountCodeId: (await insertDiscountCode(owner)).id,
    blogPostId: (await insertBlogPost(owner)).id,
    licenseKey: (await insertLicense(owner, productId)).key,
    deliveryId: (await insertDelivery(t.ctx.sequelize, owner, productId, { session: null })).id,
    // Completed, so that a refund would land if the ownership check let it through (a confirm would be a 409, not a 404).
    checkoutSessionId: (await insertCheckoutSessionRow(t.ctx.sequelize, owner, { status: 'completed' })).id,
    customerId,
    ...plans,
    subscriptionId: (await insertSubscriptionRow(owner, { customerId, planId: plans.planId })).id,
    warehouseId: (await insertWarehouse(owner)).id,
    // Not the default, so that only the ownership check stands between a DELETE and the archive.
    variantId: (await insertVariant(owner, productId, { isDefault: false })).id,
    manualOrderId: (await insertManualOrder(t.ctx.sequelize, owner, productId)).id,
    invoiceId: (await insertInvoice(t.ctx.sequelize, owner)).id,
    payoutId: (await insertPayoutRow(createCryptoBox(requireEncryptionKey(t.ctx.config)), owner)).id,
    testClockId: (await TestClock.create({ id: newId('clock'), accountId: owner.accountId, environment: 'test', frozenTime: new Date('2025-01-01T00:00:00Z') })).id,
    // Booked, with its label, and still cancellable: only the ownership check stands between a call and its effect.
    shipmentId: await insertOrigin(owner).then(() => insertBookedShipment(t.ctx.sequelize, owner)),
  };
  // Inventory routes answer 409 while the module is off: both callers' workspaces have it on, so only ownership decides.
  await enableFulfillment(owner);
  doc = (await http<OpenApi>(t.api.baseUrl, 'GET', '/api/openapi.json')).body;
});

describe('ids of another workspace or environment', () => {
  it('has a probe for every documented route and method with an id, and none for one that is gone', () => {
    const called = callsFor(doc, owned).map((c) => `${c.method} ${c.route}`);
    const probed = Object.entries(PROBES).flatMap(([route, probe]) => Object.keys(probe.methods).map((method) => `${method} ${route}`));
    expect(called.sort()).toEqual(probed.sort());
  });

  it('probes real rows: every id filled in belongs to A’s test environment', async () => {
    const rows = Object.values(await snapshot(owner.accountId, owner.secretKey)).flat();
    // Licences are addressed by their key, a webhook delivery by the event of its log rows.
    for (const id of Object.values(owned)) {
      expect({ id, environment: rows.find((r) => r.id === id || r.key === id || r.event_id === id)?.environment }).toEqual({ id, environment: 'test' });
    }
  });

  it.each([
    [
      'another workspace’s secret key',
      async () => {
        const other = await t.ctx.createWorkspace({ plan: 'pro' });
        await enableFulfillment(other);
        return other.secretKey;
      },
    ],
    ['the same workspace’s live secret key', async () => owner.liveSecretKey],
  ])('answers 404 to %s on every method of every id route, changing none of A’s rows', async (_who, keyOf) => {
    const key = await keyOf();
    const outcomes: string[] = [];
    for (const call of callsFor(doc, owned)) {
      const before = await snapshot(owner.accountId, key);
      const res = await http<{ error: { code: string } | null }>(t.api.baseUrl, call.method.toUpperCase(), call.url, {
        key,
        ...(call.body ? { body: call.body } : {}),
      });
      const changed = Object.entries(await snapshot(owner.accountId, key))
        .filter(([table, rows]) => JSON.stringify(rows) !== JSON.stringify(before[table]))
        .map(([table]) => table);
      outcomes.push(`${call.method.toUpperCase()} ${call.route}: ${res.status} ${res.body?.error?.code ?? ''}${changed.length ? `, changed ${changed.join(', ')}` : ''}`);
    }
    // One readable table: every route that let the caller in or wrote anything shows up in the diff.
    expect(outcomes).toEqual(callsFor(doc, owned).map((c) => `${c.method.toUpperCase()} ${c.route}: 404 ${c.code}`));
  });
});
