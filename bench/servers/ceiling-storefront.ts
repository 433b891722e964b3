import type { ServerResponse } from 'node:http';
import type { Pool } from 'pg';
import { publicCacheHeaders } from '../../api/endpoint';
import { CACHE_SECONDS } from '../../api/routes/storefront-public/router';
import { createDatabase } from '../../db/connection';
import { MERCHANT_SQL } from '../../db/merchants';
import type { Statement } from '../../db/pagination';
import type { ProductReadRow } from '../../db/products';
import type { Tenant } from '../../db/tenancy';
import { toPublicDiscountCode, type DiscountCodeRow } from '../../domain/discounts';
import { toProductDto } from '../../domain/products';
import { crossSell, publicReadStatements, toMerchantDto, toPixelsDto, toPublicProduct, type Merchant, type PublicProduct } from '../../domain/storefront';
import { serveBare, sendJson } from './bare';

/**
 * Ceiling for the public storefront reads `GET /api/v1/storefront/public/:merchantSlug` (landing) and
 * `GET /api/v1/storefront/public/:merchantSlug/:productSlug` (product page), keyless: the route's database work in
 * the route's round trips — the merchant lookup (MERCHANT_SQL), then the landing's products page and listed
 * discount codes, or the product by slug and, when it has tags, the cross-sell candidates — as the very statements
 * the route builds (publicReadStatements), each a named prepared statement as on the route; the same DTO code and
 * the same caching headers (ETag over `data`, Cache-Control, Vary), with no framework, validation, rate limiting,
 * logging or security headers. Env: PUBLIC_BASE_URL.
 */
const baseUrl = process.env.PUBLIC_BASE_URL ?? 'http://localhost:3000';
const PREFIX = '/api/v1/storefront/public/';

// The model registry supplies the column lists; this Sequelize instance never opens a connection.
createDatabase({ url: process.env.DATABASE_URL ?? '' });

/** One name per statement text, as db/plain-query.ts gives the route's (each connection prepares it once). */
const names = new Map<string, string>();
async function query<T extends object>(pool: Pool, { text, values }: Statement): Promise<T[]> {
  let name = names.get(text);
  if (!name) names.set(text, (name = `ceiling-storefront-${names.size + 1}`));
  return (await pool.query<T>({ name, text, values })).rows;
}

async function merchantOf(pool: Pool, slug: string): Promise<Merchant | undefined> {
  const [row] = await query<Merchant>(pool, { text: MERCHANT_SQL, values: [slug] });
  return row?.slug ? row : undefined;
}

async function publicProducts(pool: Pool, merchant: Merchant, statement: Statement): Promise<PublicProduct[]> {
  const storefront = { workspaceSlug: merchant.slug, baseUrl };
  const rows = await query<ProductReadRow>(pool, statement);
  return rows.map((row) => toPublicProduct(toProductDto(row, row.files, storefront, 'buyer')));
}

/** The envelope with the route's caching headers; `data` is serialised once, for the ETag and the body. */
function sendCached(res: ServerResponse, data: unknown): void {
  const json = JSON.stringify(data);
  const body = `{"data":${json},"error":null,"meta":${JSON.stringify({ requestId: null, timestamp: new Date().toISOString() })}}`;
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...publicCacheHeaders(CACHE_SECONDS, json),
  });
  res.end(body);
}

serveBare({}, async (pool, req, res) => {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const segments = path.startsWith(PREFIX) ? path.slice(PREFIX.length).split('/').map(decodeURIComponent) : [];
  if (req.method !== 'GET' || segments.length < 1 || segments.length > 2) return sendJson(res, 404, { error: 'no route' });
  const [merchantSlug = '', productSlug] = segments;

  const merchant = await merchantOf(pool, merchantSlug);
  if (!merchant) return sendJson(res, 404, { error: 'RESOURCE_NOT_FOUND' });
  // Keyless: the live catalogue (storefrontEnvironment).
  const tenant: Tenant = { accountId: merchant.id, environment: 'live' };

  if (productSlug === undefined) {
    const products = await publicProducts(pool, merchant, publicReadStatements.landingProducts(tenant));
    const codes = await query<DiscountCodeRow>(pool, publicReadStatements.discountCodes(tenant, new Date()));
    return sendCached(res, { merchant: toMerchantDto(merchant), products, discountCodes: codes.map(toPublicDiscountCode), pixels: toPixelsDto(merchant) });
  }

  const [product] = await publicProducts(pool, merchant, publicReadStatements.product(tenant, productSlug));
  if (!product) return sendJson(res, 404, { error: 'RESOURCE_NOT_FOUND' });
  const candidates = product.tags.length > 0 ? await publicProducts(pool, merchant, publicReadStatements.crossSellCandidates(tenant, product.tags)) : [];
  sendCached(res, { ...product, variants: [], inventory: null, crossSell: crossSell(product, candidates) });
});
