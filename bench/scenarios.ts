import pg from 'pg';
import type { ServerSpec } from './lib/child-server';
import { FILES_PER_PRODUCT, STOREFRONT_PRODUCT_SLUG, STOREFRONT_PUBLIC_CODES, STOREFRONT_PUBLISHED } from './lib/catalogue';
import type { BenchInfra } from './lib/infra';
import { ACTIVATE_MAX_ACTIVATIONS, ACTIVATE_SEEDED_INSTANCE, VALIDATE_SEEDED_ACTIVATIONS, type BenchLicences, type LicencePools } from './lib/licences';
import type { LoadRequest } from './lib/load';
import type { BenchOptions } from './lib/options';

/** One side of a pair: which server to start, what to send it, and how to tell a real answer from a wrong one. */
export interface Side {
  server: ServerSpec;
  request: LoadRequest;
  /** Checked once on a single request before any load; throw to abort the bench. */
  verify(status: number, body: unknown): void;
  /** Checked after the measured run, e.g. that a write's deferred part happened for every request; throw to abort. */
  afterRun?(): Promise<void>;
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

/** Product pageUrls carry it: the same on both sides, so both answer the same bytes. */
const PUBLIC_BASE_URL = 'http://localhost:3000';

/**
 * The per-IP budget of public routes on both sides: high enough that loopback (one address) is never refused, so
 * the count is taken far from the limit (batched, bench/servers/ceiling-licenses.ts does the same).
 */
const PUBLIC_RATE_LIMIT_PER_MINUTE = '100000000';

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
      PUBLIC_RATE_LIMIT_PER_MINUTE,
      PUBLIC_BASE_URL,
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
    env: {
      NODE_ENV: 'production',
      DATABASE_URL: infra.databaseUrl,
      POOL_SIZE: String(options.poolSize),
      BENCH_KEY_CACHE_MS: String(ROUTE_KEY_CACHE_MS),
      PUBLIC_BASE_URL,
    },
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

function expectPayout(status: number, body: unknown) {
  const data = (body as { data?: { id?: unknown; status?: unknown } } | null)?.data;
  if (status !== 201 || typeof data?.id !== 'string' || !data.id.startsWith('pout_') || data.status !== 'pending') {
    throw new Error(`expected 201 with a pending payout, got ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
}

function expectProductListPage(status: number, body: unknown) {
  expectPage(50)(status, body);
  const files = (body as { data: Array<{ files: unknown[] }> }).data.map((p) => p.files.length);
  if (files.some((n) => n !== FILES_PER_PRODUCT)) throw new Error(`expected ${FILES_PER_PRODUCT} files per product, got ${files.join(',')}`);
}

type Json = Record<string, unknown>;

/**
 * Checks a public answer with `check`, then that both sides of a pair answer the very same `data` (as `comparable`
 * sees it): a pair's ceiling is verified first, then its full stack. The envelope's request id and timestamp differ anyway.
 */
function sameData(check: (data: Json) => string | undefined, comparable: (data: Json) => Json = (data) => data) {
  let ceiling: string | undefined;
  return (status: number, body: unknown) => {
    const data = (body as { data?: Json } | null)?.data;
    const problem = status !== 200 || !data ? 'not a 200 with data' : check(data);
    if (problem) throw new Error(`${problem}; got ${status}: ${JSON.stringify(body).slice(0, 300)}`);
    const json = JSON.stringify(comparable(data!));
    if (ceiling === undefined) {
      ceiling = json;
      return;
    }
    const expected = ceiling;
    ceiling = undefined;
    if (json !== expected) throw new Error(`the two sides answer different data:\n${expected.slice(0, 400)}\n${json.slice(0, 400)}`);
  };
}

const filesOfDigital = (products: Json[]) =>
  products.every((p) => (p.files as unknown[]).length === (p.type === 'digital' ? FILES_PER_PRODUCT : 0)) ? undefined : 'files missing';

const expectLanding = sameData((data) => {
  const { products, discountCodes } = data as { products: Json[]; discountCodes: unknown[] };
  if (products.length !== STOREFRONT_PUBLISHED) return `expected ${STOREFRONT_PUBLISHED} products`;
  if (discountCodes.length !== STOREFRONT_PUBLIC_CODES) return `expected ${STOREFRONT_PUBLIC_CODES} discount codes`;
  return filesOfDigital(products);
});

const expectProductPage = sameData((data) => {
    const crossSell = data.crossSell as Json[];
    if (data.slug !== STOREFRONT_PRODUCT_SLUG) return `expected the product ${STOREFRONT_PRODUCT_SLUG}`;
    if (crossSell.length !== 4) return 'expected a cross-sell list of 4';
    return filesOfDigital([data, ...crossSell]);
  });

/**
 * A distinct name per request (`n` counts across the run; the probe is 0) and per side of each round (`side`: a
 * second round's probe must not meet the first one's), so each create derives a free slug: the ceiling has no
 * collision path (the route's has its own tests).
 */
const productBody = (side: number, n: number) =>
  JSON.stringify({ name: `Bench product ${process.pid} ${side} ${n}`, price: 150_000, currency: 'IDR', type: 'digital' });
let productSides = 0;

/** What a scenario adds to both servers' environment, and checks after each side's run. */
interface PairExtras {
  env?: (ctx: BenchContext) => Record<string, string>;
  /** Only on the full stack (e.g. TRUST_PROXY, which the ceiling reads for itself). */
  fullStackEnv?: Record<string, string>;
  afterRun?: (ctx: BenchContext) => Promise<void>;
}

const withEnv = (spec: ServerSpec, ...envs: Array<Record<string, string> | undefined>): ServerSpec => ({ ...spec, env: Object.assign({ ...spec.env }, ...envs) });

/** One scenario: both sides get the same request, the ceiling with the same key, looked up the same way. */
function pair(
  name: string,
  target: number,
  ceilingScript: string,
  request: (ctx: BenchContext) => LoadRequest,
  verify: (ctx: BenchContext) => Side['verify'],
  extras: PairExtras = {},
): Scenario {
  const afterRun = extras.afterRun && ((ctx: BenchContext) => () => extras.afterRun!(ctx));
  return {
    name,
    target,
    ceiling: (ctx) => ({ server: withEnv(ceilingServer(ceilingScript, ctx), extras.env?.(ctx)), request: request(ctx), verify: verify(ctx), afterRun: afterRun?.(ctx) }),
    fullStack: (ctx) => ({ server: withEnv(fullStackServer(ctx), extras.env?.(ctx), extras.fullStackEnv), request: request(ctx), verify: verify(ctx), afterRun: afterRun?.(ctx) }),
  };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/**
 * Payout create under contention: every request of the 32 connections debits the same balance row of one workspace
 * (bench/lib/payouts.ts), and starts the payout's workflow. The ceiling also needs the key that sealed the bank
 * account and the Temporal server it starts workflows on.
 */
const payoutCreate: Scenario = {
  name: 'payout create',
  target: 0.6,
  ceiling: (ctx) => {
    const spec = ceilingServer('bench/servers/ceiling-payouts-create.ts', ctx);
    return {
      server: { ...spec, env: { ...spec.env, ENCRYPTION_KEY: ctx.infra.encryptionKey, TEMPORAL_ADDRESS: ctx.infra.temporalAddress } },
      request: payoutRequest(ctx),
      verify: expectPayout,
    };
  },
  fullStack: (ctx) => ({ server: fullStackServer(ctx), request: payoutRequest(ctx), verify: expectPayout }),
};

function payoutRequest(ctx: BenchContext): LoadRequest {
  return {
    method: 'POST',
    path: '/api/v1/payouts',
    headers: { ...bearer(ctx.infra.payouts.secretKey), 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 1, currency: 'USD' }),
  };
}

/**
 * A merchant's stock adjustments under contention: 32 connections adjusting the one variant of bench/lib/inventory.ts
 * in its one warehouse, so every request queues on the same stock row's lock. Requests alternate +1 and −1 (a count
 * corrected either way), so the balance stays where it was seeded and never refuses one.
 */
const adjustRequest = (ctx: BenchContext): LoadRequest => {
  const { secretKey, variantId, warehouseId } = ctx.infra.inventory;
  const body = (n: number) => JSON.stringify({ variantId, warehouseId, delta: n % 2 === 0 ? 1 : -1, reason: 'manual_adjust' });
  return {
    method: 'POST',
    path: '/api/v1/inventory/adjust',
    headers: { ...bearer(secretKey), 'content-type': 'application/json' },
    body: body(0),
    vary: (n) => ({ body: body(n) }),
  };
};

function expectMovement(status: number, body: unknown) {
  const data = (body as { data?: { id?: unknown; kind?: unknown; balance?: unknown } } | null)?.data;
  if (status !== 201 || typeof data?.id !== 'string' || !data.id.startsWith('mvt_') || data.kind !== 'adjust' || typeof data.balance !== 'number') {
    throw new Error(`expected 201 with an adjust movement, got ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
}

/** Probes of the reserve scenario so far: each comes from an address of its own, as every buyer of its load does. */
let reserveProbes = 0;

/**
 * The n-th buyer's address (198.18.0.0/15, the benchmarking range), as the proxy in front of the API reports it
 * (X-Forwarded-For, TRUST_PROXY=1): a different buyer for every request (n counts across the process), as in a real
 * launch, so the public write limits per IP and merchant are counted on both sides and never reached.
 */
const buyerAddress = (n: number) => `198.${18 + ((n >> 16) & 1)}.${(n >> 8) & 255}.${n & 255}`;

/**
 * Buyers reserving under contention: 32 connections each taking the buy-now checkout of one unit of the one variant
 * of bench/lib/inventory.ts, the route that reserves stock (in the transaction that writes the session), so every
 * request queues on the same stock row's lock. Each request comes from another buyer's address (X-Forwarded-For,
 * believed with TRUST_PROXY=1 on both sides), so the checkout limit of 10 a minute per address and merchant, which
 * has no knob, counts every request without refusing one; the variant's seeded stock outlasts any run.
 */
function reserveSide(ctx: BenchContext, server: ServerSpec): Side {
  const { slug, productSlug, variantId } = ctx.infra.inventory;
  return {
    server,
    request: {
      method: 'POST',
      path: `/api/v1/storefront/public/${slug}/${productSlug}/checkout`,
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.19.255.${(reserveProbes += 1)}` },
      body: JSON.stringify({
        email: 'buyer@example.com',
        variantId,
        quantity: 1,
        shippingAddress: { name: 'Bench Buyer', line1: 'Jl. Sudirman 1', city: 'Jakarta', postalCode: '10220', country: 'ID' },
      }),
      vary: (n) => ({ headers: { 'x-forwarded-for': buyerAddress(n) } }),
    },
    verify: expectCheckout,
  };
}

function expectCheckout(status: number, body: unknown) {
  const data = (body as { data?: { checkoutSessionId?: unknown; hostedUrl?: unknown } } | null)?.data;
  if (status !== 201 || typeof data?.checkoutSessionId !== 'string' || !data.checkoutSessionId.startsWith('cs_') || typeof data.hostedUrl !== 'string') {
    throw new Error(`expected 201 with a checkout session, got ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
}

const stockReserve: Scenario = {
  name: 'stock reserve (buy-now checkout, one variant)',
  target: 0.6,
  ceiling: (ctx) => {
    const spec = ceilingServer('bench/servers/ceiling-stock-reserve.ts', ctx);
    return reserveSide(ctx, { ...spec, env: { ...spec.env, PUBLIC_RATE_LIMIT_PER_MINUTE, TEMPORAL_ADDRESS: ctx.infra.temporalAddress } });
  },
  fullStack: (ctx) => {
    const spec = fullStackServer(ctx);
    return reserveSide(ctx, { ...spec, env: { ...spec.env, TRUST_PROXY: '1' } });
  },
};

const LICENSES = '/api/v1/storefront/licenses';

/** One side's licences: its pool's keys, all of one product. */
interface LicencePool {
  keys: string[];
  productId: string;
}

type LicenceRequest = (pool: LicencePool, index: number) => { path: string; body?: string };

/**
 * How far each pool has been walked and how often its probe key was activated, across rounds (BENCH_ROUNDS): a
 * later round carries on where the last stopped.
 */
const walked = new WeakMap<string[], { next: number; probes: number }>();

/**
 * A licence scenario: each side walks its own pool of keys (bench/lib/licences.ts), so both sides do the same
 * sequence of work on the same seeded state. `request(pool, i)` is the i-th request of the walk (on key 1 + i mod
 * (size - 1)); `probe(pool, n)` the n-th request verified before a side's load, on key 0, which the walk leaves alone
 * so both sides of a pair answer their probe alike.
 */
function licencePair(name: string, target: number, pools: (licences: BenchLicences) => LicencePools, request: LicenceRequest, probe: LicenceRequest, verify: Side['verify']): Scenario {
  const side = (pool: LicencePool, server: ServerSpec): Side => {
    const cursor = walked.get(pool.keys) ?? { next: 0, probes: 0 };
    walked.set(pool.keys, cursor);
    const { path, body } = probe(pool, cursor.probes++);
    return {
      server,
      request: {
        method: body === undefined ? 'GET' : 'POST',
        path,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body }),
        vary: () => request(pool, cursor.next++),
      },
      verify,
    };
  };
  const poolOf = (ctx: BenchContext, which: keyof LicencePools): LicencePool => ({
    keys: pools(ctx.infra.licences)[which],
    productId: ctx.infra.licences.productId,
  });
  return {
    name,
    target,
    ceiling: (ctx) => {
      const spec = ceilingServer('bench/servers/ceiling-licenses.ts', ctx);
      return side(poolOf(ctx, 'ceiling'), { ...spec, env: { ...spec.env, PUBLIC_RATE_LIMIT_PER_MINUTE } });
    },
    fullStack: (ctx) => side(poolOf(ctx, 'fullStack'), fullStackServer(ctx)),
  };
}

/** The key slot of walk request i: keys 1 to size - 1 in turn. */
const slotOf = ({ keys }: LicencePool, i: number) => 1 + (i % (keys.length - 1));

const validatePath = (pool: LicencePool, key: string) => `${LICENSES}/validate?key=${encodeURIComponent(key)}&productId=${encodeURIComponent(pool.productId)}`;
const validateRequest: LicenceRequest = (pool, i) => ({ path: validatePath(pool, pool.keys[slotOf(pool, i)]!) });
const validateProbe: LicenceRequest = (pool) => ({ path: validatePath(pool, pool.keys[0]!) });

const activatePath = (key: string) => `${LICENSES}/${encodeURIComponent(key)}/activate`;
/**
 * Walk request i: a new instance, except every fourth request, which names the licence's seeded instance (software
 * reinstalled on the same machine: `alreadyActive`, no slot burnt), so both sides serve one repeat in four from the start.
 */
const activateRequest: LicenceRequest = (pool, i) => ({
  path: activatePath(pool.keys[slotOf(pool, i)]!),
  body: JSON.stringify({ instanceId: i % 4 === 3 ? ACTIVATE_SEEDED_INSTANCE : `host-${i}` }),
});
/** Probe n activates instance n of key 0: on both sides of pair n, the licence's activation n + 2. */
const activateProbe: LicenceRequest = (pool, n) => ({ path: activatePath(pool.keys[0]!), body: JSON.stringify({ instanceId: `probe-${n}` }) });

/** Each side answers for a key of its own pool: `data` is compared without it. */
const withoutKey = (data: Json): Json => ({ ...data, key: undefined });

const expectValid = sameData(
  (data) =>
    data.valid === true && data.activations === VALIDATE_SEEDED_ACTIVATIONS && typeof data.expiresAt === 'string'
      ? undefined
      : `expected a valid licence with ${VALIDATE_SEEDED_ACTIVATIONS} activations and an expiry`,
  withoutKey,
);

const expectActivated = sameData(
  (data) =>
    data.activated === true && data.alreadyActive === false && data.maxActivations === ACTIVATE_MAX_ACTIVATIONS ? undefined : 'expected a new activation',
  withoutKey,
);

/** Neither side has a worker on it: the started sessions' workflows wait, as they would for a buyer who never pays. */
const CHECKOUT_CREATE_QUEUE = 'bench-checkout-create';

function expectCheckoutCreated(status: number, body: unknown) {
  const data = (body as { data?: { checkoutSessionId?: unknown; hostedUrl?: unknown } } | null)?.data;
  const id = data?.checkoutSessionId;
  if (status !== 201 || typeof id !== 'string' || !id.startsWith('cs_') || data?.hostedUrl !== `${PUBLIC_BASE_URL}/checkout/${id}`) {
    throw new Error(`expected 201 with a checkout session and its hosted page, got ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
}

/** Recorded workflow starts nobody has started yet. */
async function countPendingStarts(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM workflow_starts WHERE started_at IS NULL');
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

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
    0.7,
    'bench/servers/ceiling-products-list.ts',
    (ctx) => ({ method: 'GET', path: '/api/v1/storefront/products', headers: bearer(ctx.infra.catalogue.list.secretKey) }),
    () => expectProductListPage,
  ),
  // Keyless buyer reads of the live catalogue, the busiest routes (bench/lib/catalogue.ts seeds the store).
  pair(
    'storefront landing',
    0.7,
    'bench/servers/ceiling-storefront.ts',
    (ctx) => ({ method: 'GET', path: `/api/v1/storefront/public/${ctx.infra.catalogue.storefront.slug}` }),
    () => expectLanding,
  ),
  pair(
    'storefront product page',
    0.7,
    'bench/servers/ceiling-storefront.ts',
    (ctx) => ({ method: 'GET', path: `/api/v1/storefront/public/${ctx.infra.catalogue.storefront.slug}/${ctx.infra.catalogue.storefront.productSlug}` }),
    () => expectProductPage,
  ),
  pair(
    'checkout create (storefront buy-now)',
    0.6,
    'bench/servers/ceiling-checkout.ts',
    (ctx) => ({
      method: 'POST',
      path: `/api/v1/storefront/public/${ctx.infra.catalogue.storefront.slug}/${ctx.infra.catalogue.storefront.productSlug}/checkout`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'buyer@example.com' }),
      vary: (n) => ({ headers: { 'x-forwarded-for': buyerAddress(n) } }),
    }),
    () => expectCheckoutCreated,
    {
      env: (ctx) => ({ TEMPORAL_ADDRESS: ctx.infra.temporalAddress, TEMPORAL_TASK_QUEUE: CHECKOUT_CREATE_QUEUE }),
      fullStackEnv: { TRUST_PROXY: '1' },
      afterRun: async (ctx) => {
        // Requests still in flight when the load stopped finish their starts first.
        let pending = await countPendingStarts(ctx.infra.databaseUrl);
        for (let waited = 0; pending > 0 && waited < 10_000; waited += 250) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          pending = await countPendingStarts(ctx.infra.databaseUrl);
        }
        if (pending > 0) throw new Error(`${pending} sessions' workflows were not started after commit (left to the relay): the run did less than the route's work`);
      },
    },
  ),
  // After the list: its thousands of inserts would leave the list workspace's statistics stale otherwise.
  pair(
    'product create',
    0.6,
    'bench/servers/ceiling-products-create.ts',
    (ctx) => {
      const side = (productSides += 1);
      return {
        method: 'POST',
        path: '/api/v1/storefront/products',
        headers: { ...bearer(ctx.infra.catalogue.create.secretKey), 'content-type': 'application/json' },
        body: productBody(side, 0),
        vary: (n) => ({ body: productBody(side, n) }),
      };
    },
    () => expectCreated,
  ),
  payoutCreate,
  // Installed software checking its licence (bench/lib/licences.ts): one key after another, under the real per-key limit.
  licencePair('licence validate', 0.7, (licences) => licences.validate, validateRequest, validateProbe, expectValid),
  licencePair('licence activate', 0.6, (licences) => licences.activate, activateRequest, activateProbe, expectActivated),
  pair('stock adjust (one variant)', 0.6, 'bench/servers/ceiling-stock-adjust.ts', adjustRequest, () => expectMovement),
  stockReserve,
];
