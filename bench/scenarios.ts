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
 * A pair measured under identical conditions: the ceiling (the least work that could answer, straight on
 * node:http + pg) and the full stack (the real route through createApp). `target` is the minimum
 * full/ceiling ratio of requests per second.
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

/** A bare node:http + pg server from bench/servers/, given the same database and pool size. */
export function ceilingServer(script: string, { infra, options }: BenchContext, env: Record<string, string> = {}): ServerSpec {
  return {
    script,
    readyPath: '/readyz',
    env: { NODE_ENV: 'production', DATABASE_URL: infra.databaseUrl, POOL_SIZE: String(options.poolSize), ...env },
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

export const scenarios: Scenario[] = [
  {
    name: 'api-keys list',
    target: 0.5,
    ceiling: (ctx) => ({
      server: ceilingServer('bench/servers/ceiling-api-keys.ts', ctx, {
        BENCH_ACCOUNT_ID: ctx.infra.workspace.accountId,
        BENCH_ENVIRONMENT: 'test',
      }),
      request: { method: 'GET', path: '/api/v1/account/api-keys' },
      verify: expectPage(ctx.infra.testApiKeyCount),
    }),
    fullStack: (ctx) => ({
      server: fullStackServer(ctx),
      request: {
        method: 'GET',
        path: '/api/v1/account/api-keys',
        headers: { authorization: `Bearer ${ctx.infra.workspace.secretKey}` },
      },
      verify: expectPage(ctx.infra.testApiKeyCount),
    }),
  },
  {
    name: 'product list',
    target: 0.5,
    ceiling: (ctx) => ({
      server: ceilingServer('bench/servers/ceiling-products-list.ts', ctx, {
        BENCH_ACCOUNT_ID: ctx.infra.catalogue.list.accountId,
        BENCH_ENVIRONMENT: 'test',
        BENCH_WORKSPACE_SLUG: 'bench-catalogue',
      }),
      request: { method: 'GET', path: '/api/v1/storefront/products' },
      verify: expectProductPage,
    }),
    fullStack: (ctx) => ({
      server: fullStackServer(ctx),
      request: { method: 'GET', path: '/api/v1/storefront/products', headers: { authorization: `Bearer ${ctx.infra.catalogue.list.secretKey}` } },
      verify: expectProductPage,
    }),
  },
  // After the list: its thousands of inserts would leave the list workspace's statistics stale otherwise.
  {
    name: 'product create',
    target: 0.4,
    ceiling: (ctx) => ({
      server: ceilingServer('bench/servers/ceiling-products-create.ts', ctx, {
        BENCH_ACCOUNT_ID: ctx.infra.catalogue.create.accountId,
        BENCH_ENVIRONMENT: 'test',
        BENCH_WORKSPACE_SLUG: 'bench-catalogue-writes',
      }),
      request: { method: 'POST', path: '/api/v1/storefront/products', headers: { 'content-type': 'application/json' }, body: PRODUCT_BODY, bodyFor: productBody },
      verify: expectCreated,
    }),
    fullStack: (ctx) => ({
      server: fullStackServer(ctx),
      request: {
        method: 'POST',
        path: '/api/v1/storefront/products',
        headers: { authorization: `Bearer ${ctx.infra.catalogue.create.secretKey}`, 'content-type': 'application/json' },
        body: PRODUCT_BODY,
        bodyFor: productBody,
      },
      verify: expectCreated,
    }),
  },
];
