import type { ServerSpec } from './lib/child-server';
import { FILES_PER_PRODUCT } from './lib/catalogue';
import type { BenchInfra } from './lib/infra';
import type { LoadRequest } from './lib/load';
import type { BenchOptions } from './lib/options';

/** One side of a pair: which server to start, what to send it, and how to tell a real answer from a wrong one. */
export interface Side {
  server: ServerSpec;
  request: LoadRequest;
  /** Checked once on a single request before any load; throw to abort the bench. */
  verify(status: number, body: unknown): void;
}

/**
 * A pair measured under identical conditions: the ceiling (the route's own statements in the route's own
 * round trips, straight on node:http + pg) and the full stack (the real route through createApp), so the
 * ratio measures what Express, zod, Sequelize and the middleware cost. `target` is the minimum full/ceiling
 * ratio of requests per second.
 */
export interface Scenario {
  name: string;
  target: number;
  ceiling(ctx: BenchContext): Side;
  fullStack(ctx: BenchContext): Side;
}

export interface BenchContext {
  infra: BenchInfra;
  options: BenchOptions;
}

/** The real API process (`api/main.ts`), silent, with a limiter that counts every request but never rejects. */
export function fullStackServer({ infra, options }: BenchContext): ServerSpec {
  return {
    script: 'api/main.ts',
    readyPath: '/readyz',
    env: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      DATABASE_URL: infra.databaseUrl,
      DATABASE_POOL_MAX: String(options.poolSize),
      TEMPORAL_ADDRESS: infra.temporalAddress,
      TEMPORAL_NAMESPACE: 'default',
      ENCRYPTION_KEY: infra.encryptionKey,
      RATE_LIMIT_PER_MINUTE: '100000000',
    },
  };
}

/**
 * How the route looks up the API key, which the ceilings mirror (bench/servers/key-lookup.ts): the route caches
 * keys in the process for AUTH_CACHE_TTL (default 60 s, domain/api-keys/cache.ts), so the ceilings cache for as
 * long; 0 would mean a query on every request.
 */
const ROUTE_KEY_CACHE_MS = 60_000;

/** A bare node:http + pg server from bench/servers/, given the same database and pool size. */
export function ceilingServer(script: string, { infra, options }: BenchContext): ServerSpec {
  return {
    script,
    readyPath: '/readyz',
    env: { NODE_ENV: 'production', DATABASE_URL: infra.databaseUrl, POOL_SIZE: String(options.poolSize), BENCH_KEY_CACHE_MS: String(ROUTE_KEY_CACHE_MS) },
  };
}

function expectPage(rows: number) {
  return (status: number, body: unknown) => {
    const data = (body as { data?: unknown } | null)?.data;
    if (status !== 200 || !Array.isArray(data) || data.length !== rows) {
      throw new Error(`expected 200 with ${rows} rows in data, got ${status}: ${JSON.stringify(body).slice(0, 300)}`);
    }
  };
}

function expectCreated(status: number, body: unknown) {
  const data = (body as { data?: { id?: unknown } } | null)?.data;
  if (status !== 201 || typeof data?.id !== 'string' || !data.id.startsWith('prod_')) {
    throw new Error(`expected 201 with a product, got ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
}

function expectProductPage(status: number, body: unknown) {
  expectPage(50)(status, body);
  const files = (body as { data: Array<{ files: unknown[] }> }).data.map((p) => p.files.length);
  if (files.some((n) => n !== FILES_PER_PRODUCT)) throw new Error(`expected ${FILES_PER_PRODUCT} files per product, got ${files.join(',')}`);
}

/** A distinct name per request, so each create derives a free slug (the collision path has its own tests). */
const productBody = (n: number) => JSON.stringify({ name: `Bench product ${process.pid} ${n}`, price: 150_000, currency: 'IDR', type: 'digital' });
const PRODUCT_BODY = productBody(0);

/** One scenario: both sides get the same request, the ceiling with the same key, looked up the same way. */
function pair(
  name: string,
  target: number,
  ceilingScript: string,
  request: (ctx: BenchContext) => LoadRequest,
  verify: (ctx: BenchContext) => Side['verify'],
): Scenario {
  return {
    name,
    target,
    ceiling: (ctx) => ({ server: ceilingServer(ceilingScript, ctx), request: request(ctx), verify: verify(ctx) }),
    fullStack: (ctx) => ({ server: fullStackServer(ctx), request: request(ctx), verify: verify(ctx) }),
  };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export const scenarios: Scenario[] = [
  pair(
    'api-keys list',
    0.6,
    'bench/servers/ceiling-api-keys.ts',
    (ctx) => ({ method: 'GET', path: '/api/v1/account/api-keys', headers: bearer(ctx.infra.workspace.secretKey) }),
    (ctx) => expectPage(ctx.infra.testApiKeyCount),
  ),
  pair(
    'product list',
    0.6,
    'bench/servers/ceiling-products-list.ts',
    (ctx) => ({ method: 'GET', path: '/api/v1/storefront/products', headers: bearer(ctx.infra.catalogue.list.secretKey) }),
    () => expectProductPage,
  ),
  // After the list: its thousands of inserts would leave the list workspace's statistics stale otherwise.
  pair(
    'product create',
    0.6,
    'bench/servers/ceiling-products-create.ts',
    (ctx) => ({
      method: 'POST',
      path: '/api/v1/storefront/products',
      headers: { ...bearer(ctx.infra.catalogue.create.secretKey), 'content-type': 'application/json' },
      body: PRODUCT_BODY,
      bodyFor: productBody,
    }),
    () => expectCreated,
  ),
];
