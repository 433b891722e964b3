import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { PoolClient } from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { PUBLIC_WRITE_LIMITS_PER_MINUTE } from '../../api/middleware/rate-limit';
import { connectTemporal } from '../../api/temporal-client';
import { CART_PRODUCT_BY_SLUG_SQL, type CartProductRow } from '../../db/cart-products';
import { checkoutSessionInsertStatement } from '../../db/checkout-sessions';
import { createDatabase } from '../../db/connection';
import { MERCHANT_SQL, type MerchantRow } from '../../db/merchants';
import { PAYMENT_METHODS, type CheckoutSession } from '../../db/models';
import { claimWorkflowStartsStatement, markWorkflowStartsStatement, workflowStartInsertStatement, type PendingWorkflowStart } from '../../db/workflow-starts';
import { DEFAULT_CHECKOUT_LIFETIME_MS, describeLines, hostedCheckoutUrl } from '../../domain/checkout';
import { createStarters, durableWorkflowId } from '../../domain/workflow-starters';
import { API_START_TIMEOUT_MS } from '../../domain/workflow-starts';
import { createKeyRing, generateEncryptionKey, parseEncryptionKey } from '../../lib/crypto-box';
import { newId } from '../../lib/ids';
import { toSmallestUnit } from '../../lib/money';
import { serveBare, sendJson } from './bare';

/**
 * Ceiling for the storefront buy-now `POST /api/v1/storefront/public/:merchantSlug/:productSlug/checkout`, keyless:
 * the route's database work in the route's round trips, each statement the one the route sends —
 *
 * - the per-IP-per-merchant counter of document 1's 10 creates a minute (rate-limiter-flexible's upsert on the same
 *   table under the same key; a limit this small is checked against the shared counter on every request),
 * - the merchant lookup (MERCHANT_SQL),
 * - one transaction: the product priced by its slug (CART_PRODUCT_BY_SLUG_SQL), the session INSERT
 *   (checkoutSessionInsertStatement) and the workflow-start INSERT (workflowStartInsertStatement),
 * - after the commit, the API's own start of the session's workflow (startRecordedNow): a transaction that claims the
 *   recorded row, starts `checkout-session:<cs>` through the same starter (same options, same search attribute, same
 *   deadline) on the same Temporal dev server, and marks the row started —
 *
 * with no framework, validation, logging or security headers. The client address is the last X-Forwarded-For entry,
 * as the API behind one proxy (TRUST_PROXY=1) reads it. Env: PUBLIC_BASE_URL, TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE.
 */
const baseUrl = process.env.PUBLIC_BASE_URL ?? 'http://localhost:3000';
const PREFIX = '/api/v1/storefront/public/';

// The model registry supplies the column lists; this Sequelize instance never opens a connection.
createDatabase({ url: process.env.DATABASE_URL ?? '' });

// Payloads are encrypted as the API's are (a throwaway key: nothing here reads them back).
const keyRing = createKeyRing(parseEncryptionKey(process.env.ENCRYPTION_KEY ?? generateEncryptionKey()));
const temporal = connectTemporal({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233', namespace: 'default', keyRing });
const starters = temporal.then((client) => createStarters(client, { taskQueue: process.env.TEMPORAL_TASK_QUEUE ?? 'bench-checkout-create' }));
let limiter: RateLimiterPostgres | undefined;

async function readJson(req: IncomingMessage): Promise<{ email: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function inTransaction<T>(client: PoolClient, work: () => Promise<T>): Promise<T> {
  await client.query('START TRANSACTION');
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  }
}

serveBare({}, async (pool, req, res) => {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const segments = path.startsWith(PREFIX) ? path.slice(PREFIX.length).split('/').map(decodeURIComponent) : [];
  if (req.method !== 'POST' || segments.length !== 3 || segments[2] !== 'checkout') return sendJson(res, 404, { error: 'no route' });
  const [merchantSlug = '', productSlug = ''] = segments;

  limiter ??= new RateLimiterPostgres({
    storeClient: pool,
    tableName: 'rate_limits',
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix: 'ipm:checkoutCreate',
    points: PUBLIC_WRITE_LIMITS_PER_MINUTE.checkoutCreate,
    duration: 60,
  });
  const forwarded = String(req.headers['x-forwarded-for'] ?? req.socket.remoteAddress).split(',');
  const ip = forwarded[forwarded.length - 1]!.trim();
  const slugHash = createHash('sha256').update(merchantSlug.toLowerCase()).digest('base64url');
  await limiter.consume(`${ip}:${slugHash}`);
  const body = await readJson(req);

  const [merchant] = (await pool.query<MerchantRow>({ name: 'ceiling-merchant', text: MERCHANT_SQL, values: [merchantSlug] })).rows;
  if (!merchant?.slug) return sendJson(res, 404, { error: 'RESOURCE_NOT_FOUND' });
  const tenant = { accountId: merchant.id, environment: 'live' as const };

  const client = await pool.connect();
  try {
    const { session, workflowId } = await inTransaction(client, async () => {
      const [product] = (await client.query<CartProductRow>({ name: 'ceiling-product', text: CART_PRODUCT_BY_SLUG_SQL, values: [productSlug, tenant.accountId, tenant.environment] })).rows;
      if (!product) throw new Error('no such product');
      const unitAmount = toSmallestUnit(Number(product.price), product.currency);
      const lineItems = [{ lineKey: '1', productId: product.id, variantId: null, name: product.name, variantName: null, quantity: 1, unitAmount, amount: unitAmount }];
      const expiresAt = new Date(Date.now() + DEFAULT_CHECKOUT_LIFETIME_MS);
      const insert = checkoutSessionInsertStatement({
        id: newId('cs'),
        ...tenant,
        source: 'buy_now',
        amount: unitAmount,
        currency: product.currency,
        description: describeLines(lineItems),
        customerEmail: body.email,
        customerName: null,
        customerPhone: null,
        customerId: null,
        paymentMethods: [...PAYMENT_METHODS],
        lineItems,
        subtotal: unitAmount,
        discountId: null,
        discountCode: null,
        discountAmount: 0,
        shippingAddress: null,
        referralCode: null,
        successUrl: null,
        cancelUrl: null,
        expiresAt,
        metadata: {},
      });
      const [row] = (await client.query<CheckoutSession>({ name: 'ceiling-session', ...insert })).rows;
      const input = { ...tenant, sessionId: row!.id, expiresAt: expiresAt.toISOString() };
      const id = durableWorkflowId('checkoutSession', input);
      await client.query({ name: 'ceiling-start', ...workflowStartInsertStatement(tenant, { workflowType: 'checkoutSession', workflowId: id, args: input }) });
      return { session: row!, workflowId: id };
    });

    await inTransaction(client, async () => {
      const rows = (await client.query<PendingWorkflowStart>({ name: 'ceiling-claim', ...claimWorkflowStartsStatement({ workflowIds: [workflowId] }) })).rows;
      const start = await starters;
      for (const row of rows) await start.startRecorded(row, API_START_TIMEOUT_MS);
      await client.query({ name: 'ceiling-started', ...markWorkflowStartsStatement(rows.map((r) => r.id)) });
    });
    sendJson(res, 201, {
      data: { checkoutSessionId: session.id, hostedUrl: hostedCheckoutUrl(baseUrl, session.id) },
      error: null,
      meta: { requestId: null, timestamp: new Date().toISOString() },
    });
  } finally {
    client.release();
  }
});
