import type { IncomingMessage, ServerResponse } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import type { Pool, PoolClient } from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { counterOptions, merchantCounter, PUBLIC_WRITE_LIMITS_PER_MINUTE, SharedRateLimiter } from '../../api/middleware/rate-limit';
import { createDatabase } from '../../db/connection';
import {
  LOCK_STOCK_TARGETS_SQL,
  moveStockSql,
  moveStockValues,
  SHARED_DEFAULTS_LOCK_SQL,
  warehouseDefaultsLockKey,
  type StockBalances,
} from '../../db/inventory';
import { MERCHANT_SQL } from '../../db/merchants';
import { PAYMENT_METHODS } from '../../db/models';
import {
  FULFILLMENT_ENABLED_SQL,
  INSERT_RESERVATIONS_SQL,
  SHARE_LOCK_PRODUCTS_SQL,
  TRACKED_VARIANTS_SQL,
  WAREHOUSES_WITH_ENOUGH_SQL,
} from '../../db/reservations';
import type { Tenant } from '../../db/tenancy';
import { claimWorkflowStartsStatement, markWorkflowStartsStatement, workflowStartInsertStatement, type PendingWorkflowStart } from '../../db/workflow-starts';
import { DEFAULT_CHECKOUT_LIFETIME_MS, describeLines, hostedCheckoutUrl } from '../../domain/checkout';
import { unitPriceOf } from '../../domain/inventory';
import { createStarters, durableWorkflowId } from '../../domain/workflow-starters';
import { API_START_TIMEOUT_MS } from '../../domain/workflow-starts';
import { createKeyRing, generateEncryptionKey, parseEncryptionKey } from '../../lib/crypto-box';
import { newId } from '../../lib/ids';
import { createDataConverter } from '../../lib/payload-codec';
import { toSmallestUnit } from '../../lib/money';
import { DEFAULT_TASK_QUEUE } from '../../workflows/messages';
import { serveBare, sendJson } from './bare';

/**
 * Ceiling for the buyer's buy-now checkout, `POST /api/v1/storefront/public/:merchantSlug/:productSlug/checkout`, of one
 * unit of a stock-tracked variant while the fulfillment module is on: the route's database work in the route's round
 * trips, with its own statements where they are exported (the reservation's, db/reservations.ts and db/inventory.ts,
 * the merchant lookup, the workflow start's) and the same text, parameterised, where Sequelize builds them (the three
 * catalogue reads and the session INSERT with the model's column lists). In order: the per-IP and per-IP-and-merchant
 * counts (the route's `SharedRateLimiter` and settings; the client address from X-Forwarded-For, as the route with
 * TRUST_PROXY=1), the merchant; then one transaction — the product by slug, the product and its variants for the price,
 * the session, its workflow start, the module flag, the tracked variants, the product's share lock, the shared
 * warehouse-default lock, the warehouses with enough, the variant and warehouse under FOR SHARE, the stock change
 * (the guarded UPDATE of the row every buyer of this variant queues on and its movement, one statement), the
 * reservation — and the start's fast path
 * (claim, the Temporal start, mark) — answering the same `checkoutSessionId` and `hostedUrl`, with no framework,
 * validation, logging or security headers. Env: PUBLIC_RATE_LIMIT_PER_MINUTE, PUBLIC_BASE_URL, TEMPORAL_ADDRESS.
 */
const PREFIX = '/api/v1/storefront/public/';
const baseUrl = process.env.PUBLIC_BASE_URL ?? 'http://localhost:3000';

// The model registry supplies the movement's column list; this Sequelize instance never opens a connection.
createDatabase({ url: process.env.DATABASE_URL ?? '' });

const startersReady = Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' }).then((connection) =>
  createStarters(new Client({ connection, namespace: 'default', dataConverter: createDataConverter(createKeyRing(parseEncryptionKey(process.env.ENCRYPTION_KEY ?? generateEncryptionKey()))) }), { taskQueue: DEFAULT_TASK_QUEUE }),
);

const PRODUCT_BY_SLUG_SQL = 'SELECT id FROM products WHERE slug = $1 AND account_id = $2 AND environment = $3 AND published AND NOT archived';
const CART_PRODUCTS_SQL = `SELECT id, name, type, license_enabled AS "licenseEnabled", price, currency, tags, has_variants AS "hasVariants" FROM products
  WHERE id IN ($1) AND account_id = $2 AND environment = $3 AND published AND NOT archived`;
const CART_VARIANTS_SQL = `SELECT id, product_id AS "productId", name, price_delta AS "priceDelta", is_default AS "isDefault" FROM variants
  WHERE product_id IN ($1) AND account_id = $2 AND environment = $3 AND NOT archived
  ORDER BY id`;
const SESSION_INSERT_SQL = `INSERT INTO "checkout_sessions" ("id","account_id","environment","status","source","amount","currency","description",
  "customer_email","customer_name","customer_phone","customer_id","payment_methods","success_url","cancel_url","line_items","subtotal","discount_id",
  "discount_code","discount_amount","shipping_address","referral_code","metadata","refunded_amount","expires_at","created_at","updated_at")
  VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27)
  RETURNING "id","account_id","environment","status","source","amount","currency","description","customer_email","customer_name","customer_phone",
  "customer_id","payment_methods","payment_method","success_url","cancel_url","line_items","subtotal","discount_id","discount_code","discount_amount",
  "discount_applied","shipping_address","referral_code","click_id","browser_id","metadata","refunded_amount","expires_at","paid_at","completed_at",
  "expired_at","fulfilled_at","created_at","updated_at"`;

interface BuyNowBody {
  email: string;
  variantId: string;
  quantity: number;
  shippingAddress: Record<string, string>;
}

let limits: { perIp: SharedRateLimiter; perMerchant: SharedRateLimiter } | undefined;
function limitsOf(pool: Pool) {
  const counter = (prefix: string, points: number) =>
    new SharedRateLimiter(new RateLimiterPostgres({ storeClient: pool, storeType: 'pool', ...counterOptions(prefix, points) }));
  limits ??= {
    perIp: counter('ip', Number(process.env.PUBLIC_RATE_LIMIT_PER_MINUTE ?? 200)),
    perMerchant: counter('ipm:checkoutCreate', PUBLIC_WRITE_LIMITS_PER_MINUTE.checkoutCreate),
  };
  return limits;
}

/** Both counts, as the route's chain takes them; a refusal is the route's 429. */
async function limited(pool: Pool, req: IncomingMessage, res: ServerResponse, merchantSlug: string): Promise<boolean> {
  const { perIp, perMerchant } = limitsOf(pool);
  const forwarded = req.headers['x-forwarded-for'];
  const ip = (typeof forwarded === 'string' ? forwarded.split(',').at(-1)?.trim() : undefined) ?? req.socket.remoteAddress ?? 'unknown';
  try {
    await perIp.consume(ip);
    const remaining = await perMerchant.consume(`${ip}:${merchantCounter(merchantSlug)}`);
    res.setHeader('X-RateLimit-Limit', String(perMerchant.points));
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, remaining)));
    return false;
  } catch {
    sendJson(res, 429, { error: 'RATE_LIMITED' });
    return true;
  }
}

async function readJson(req: IncomingMessage): Promise<BuyNowBody> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const rowsOf = async <T extends object>(client: PoolClient, name: string | undefined, text: string, values: unknown[]) =>
  (await client.query<T>(name ? { name, text, values } : { text, values })).rows;

/** The reservation of one unit of `variantId` from the first warehouse with enough, as reserveForLines makes it for one line. */
async function reserve(client: PoolClient, tenant: Tenant, variantId: string, quantity: number, reference: string, workflowId: string) {
  const scope = [tenant.accountId, tenant.environment];
  const [enabled] = await rowsOf<{ enabled: boolean }>(client, 'ceiling-fulfillment', FULFILLMENT_ENABLED_SQL, [tenant.accountId]);
  if (!enabled?.enabled) return false;
  const tracked = await rowsOf<{ variantId: string }>(client, 'ceiling-tracked', TRACKED_VARIANTS_SQL, [[variantId], ...scope]);
  if (tracked.length === 0) return false;
  await rowsOf(client, 'ceiling-share-products', SHARE_LOCK_PRODUCTS_SQL, [[variantId], ...scope]);
  await rowsOf(client, 'ceiling-defaults-lock', SHARED_DEFAULTS_LOCK_SQL, [warehouseDefaultsLockKey(tenant)]);
  const [warehouse] = await rowsOf<{ id: string }>(client, 'ceiling-with-enough', WAREHOUSES_WITH_ENOUGH_SQL, [variantId, ...scope, quantity]);
  if (!warehouse) throw new Error('INSUFFICIENT_STOCK');
  const stockKey = [variantId, warehouse.id, ...scope];
  const targets = await rowsOf<{ archived: boolean }>(client, 'ceiling-stock-targets', LOCK_STOCK_TARGETS_SQL, stockKey);
  if (targets.length !== 2 || targets.some((t) => t.archived)) throw new Error('INVALID_STATE');
  const deltas: StockBalances = { available: -quantity, reserved: quantity, incoming: 0 };
  const change = { id: newId('mvt'), variantId, warehouseId: warehouse.id, kind: 'reserve' as const, reason: 'reserve', deltas };
  const [moved] = await rowsOf(client, 'ceiling-stock-move', moveStockSql(), moveStockValues(tenant, { ...change, actorType: 'workflow', actorId: workflowId, reference, note: null }));
  if (!moved) throw new Error('INSUFFICIENT_STOCK');
  await rowsOf(client, 'ceiling-reservations', INSERT_RESERVATIONS_SQL, [reference, ...scope, [variantId], [warehouse.id], [quantity]]);
  return true;
}

async function buyNow(pool: Pool, req: IncomingMessage, res: ServerResponse, merchantSlug: string, productSlug: string): Promise<void> {
  if (await limited(pool, req, res, merchantSlug)) return;
  const body = await readJson(req);
  const [merchant] = (await pool.query<{ id: string }>({ name: 'ceiling-merchant', text: MERCHANT_SQL, values: [merchantSlug] })).rows;
  if (!merchant) return sendJson(res, 404, { error: 'RESOURCE_NOT_FOUND' });
  const tenant: Tenant = { accountId: merchant.id, environment: 'live' };
  const scope = [tenant.accountId, tenant.environment];
  const sessionId = newId('cs');
  const expiresAt = new Date(Date.now() + DEFAULT_CHECKOUT_LIFETIME_MS);
  const input = { ...tenant, sessionId, expiresAt: expiresAt.toISOString() };
  const workflowId = durableWorkflowId('checkoutSession', input);
  const client = await pool.connect();
  try {
    await client.query('START TRANSACTION');
    const [found] = await rowsOf<{ id: string }>(client, undefined, PRODUCT_BY_SLUG_SQL, [productSlug, ...scope]);
    if (!found) throw new Error('no such product');
    const [product] = await rowsOf<{ id: string; name: string; price: string; currency: 'IDR' }>(client, undefined, CART_PRODUCTS_SQL, [found.id, ...scope]);
    const variants = await rowsOf<{ id: string; name: string; priceDelta: string }>(client, undefined, CART_VARIANTS_SQL, [found.id, ...scope]);
    const variant = variants.find((v) => v.id === body.variantId);
    if (!product || !variant) throw new Error('no such variant');
    const unitAmount = toSmallestUnit(unitPriceOf({ price: Number(product.price) }, { priceDelta: Number(variant.priceDelta) }), product.currency);
    const line = { lineKey: '1', productId: product.id, variantId: variant.id, name: product.name, variantName: variant.name, quantity: body.quantity, unitAmount, amount: unitAmount * body.quantity };
    const now = new Date();
    await rowsOf(client, undefined, SESSION_INSERT_SQL, [
      sessionId, ...scope, 'open', 'buy_now', line.amount, product.currency, describeLines([line]), body.email, null, null, null,
      JSON.stringify(PAYMENT_METHODS), null, null, JSON.stringify([line]), line.amount, null, null, 0, JSON.stringify(body.shippingAddress), null,
      JSON.stringify({}), 0, expiresAt, now, now,
    ]);
    await client.query(workflowStartInsertStatement(tenant, { workflowType: 'checkoutSession', workflowId, args: input }));
    if (!(await reserve(client, tenant, variant.id, body.quantity, sessionId, workflowId))) throw new Error('nothing reserved');
    await client.query('COMMIT');

    const starters = await startersReady;
    await client.query('START TRANSACTION');
    const claimed = await client.query<PendingWorkflowStart>(claimWorkflowStartsStatement({ workflowIds: [workflowId] }));
    for (const row of claimed.rows) await starters.startRecorded(row, API_START_TIMEOUT_MS);
    await client.query(markWorkflowStartsStatement(claimed.rows.map((r) => r.id)));
    await client.query('COMMIT');
    sendJson(res, 201, {
      data: { checkoutSessionId: sessionId, hostedUrl: hostedCheckoutUrl(baseUrl, sessionId) },
      error: null,
      meta: { requestId: null, timestamp: new Date().toISOString() },
    });
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}

serveBare({}, async (pool, req, res) => {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const segments = path.startsWith(PREFIX) ? path.slice(PREFIX.length).split('/') : [];
  if (req.method !== 'POST' || segments.length !== 3 || segments[2] !== 'checkout') return sendJson(res, 404, { error: 'no route' });
  return buyNow(pool, req, res, decodeURIComponent(segments[0] ?? ''), decodeURIComponent(segments[1] ?? ''));
});
