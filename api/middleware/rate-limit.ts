import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Sequelize } from 'sequelize';
import { AppError } from '../../lib/errors';

/** Document 1, Limits: public writes are limited per client IP *and* merchant, each with its own budget. */
export const PUBLIC_WRITE_LIMITS_PER_MINUTE = {
  validateDiscount: 30,
  checkoutCreate: 10,
} as const;
export type PublicWriteLimit = keyof typeof PUBLIC_WRITE_LIMITS_PER_MINUTE;

/**
 * Licence validate, activate and deactivate together, per licence key (on top of the per-IP public limit): a
 * leaked key hammered from many addresses is held to what one installation base needs (docs/decisions/licenses.md).
 */
export const LICENSE_KEY_LIMIT_PER_MINUTE = 60;

/**
 * The public order tracker, per client IP across all merchants (on top of the per-IP public limit): order
 * numbers are sequential, so this bounds how fast anyone can walk them or guess an order's e-mail
 * (docs/decisions/manual-orders.md).
 */
export const ORDER_TRACKER_LIMIT_PER_MINUTE = 30;

export interface RateLimits {
  perWorkspace: RequestHandler;
  perIp: RequestHandler;
  /** One limiter per public write; another merchant's budget is untouched by this one's. */
  perIpPerMerchant: Record<PublicWriteLimit, RequestHandler>;
  /** The public licence routes' own limit, per licence key. */
  perLicenseKey: RequestHandler;
  /** The public order tracker's own limit, per client IP. */
  perIpOrderTracker: RequestHandler;
}

/** How long a process may hold counted requests before adding them to the shared counter. */
const FLUSH_INTERVAL_MS = 100;

interface KeyState {
  /** The shared counter as PostgreSQL last reported it. */
  consumed: number;
  resetAt: number;
  /** Requests let through here and not yet added to the shared counter. */
  pending: number;
  flushTimer?: NodeJS.Timeout;
}

/**
 * A shared fixed-window limit (rate-limiter-flexible's PostgreSQL store, one counter for every API process)
 * that does not pay a database write on every request. While a key is far from its limit, requests are
 * counted here and added to the shared counter in one `consume(key, n)` per flush interval; within the last
 * fifth of the budget (and always for small limits) each request waits for the shared counter, so the limit
 * is exact where it matters. Between processes the estimate lags by at most one flush interval.
 */
export class SharedRateLimiter {
  private readonly keys = new Map<string, KeyState>();
  private readonly exactWithin: number;
  private lastSweep = Date.now();

  constructor(private readonly store: RateLimiterPostgres) {
    this.exactWithin = Math.max(Math.ceil(store.points / 5), 100);
  }

  get points(): number {
    return this.store.points;
  }

  /** How many keys this process holds state for (public limits key by IP: without the sweep this only grows). */
  get trackedKeys(): number {
    return this.keys.size;
  }

  /** Resolves with the remaining budget, or rejects with the library's RateLimiterRes when the limit is reached. */
  async consume(key: string): Promise<number> {
    const now = Date.now();
    this.sweep(now);
    const state = this.keys.get(key);
    if (state && now < state.resetAt && this.store.points - (state.consumed + state.pending) > this.exactWithin) {
      state.pending += 1;
      state.flushTimer ??= setTimeout(() => this.flush(key), FLUSH_INTERVAL_MS).unref();
      return this.store.points - (state.consumed + state.pending);
    }
    const pending = state?.pending ?? 0;
    if (state) state.pending = 0;
    try {
      const result = await this.store.consume(key, 1 + pending);
      this.record(key, result, now);
      return result.remainingPoints;
    } catch (err) {
      if (err instanceof RateLimiterRes) this.record(key, err, now);
      // The store did not answer: the requests held here were not counted yet, and stay to be counted.
      else if (state) state.pending += pending;
      throw err;
    }
  }

  /** Once per window, forgets keys whose window has ended with nothing left to flush. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.store.duration * 1000) return;
    this.lastSweep = now;
    for (const [key, state] of this.keys) {
      if (now >= state.resetAt && state.pending === 0 && !state.flushTimer) this.keys.delete(key);
    }
  }

  private flush(key: string): void {
    const state = this.keys.get(key);
    if (!state) return;
    state.flushTimer = undefined;
    const pending = state.pending;
    state.pending = 0;
    if (pending === 0) return;
    const now = Date.now();
    this.store.consume(key, pending).then(
      (result) => this.record(key, result, now),
      (err: unknown) => {
        if (err instanceof RateLimiterRes) this.record(key, err, now);
        else {
          // The store did not answer: the flushed requests are held again, and the next request of this key takes
          // the exact path, which adds them to the shared counter (or surfaces the error).
          const held = this.keys.get(key);
          if (held) {
            held.pending += pending;
            held.resetAt = 0;
          }
        }
      },
    );
  }

  private record(key: string, result: RateLimiterRes, now: number): void {
    const state = this.keys.get(key);
    const resetAt = now + result.msBeforeNext;
    if (state) {
      // Answers of writes in flight together can arrive in any order: within one window the counter only grows, so
      // the larger count is the newer; an answer about a window before the one held here is stale.
      const halfWindowMs = this.store.duration * 500;
      if (state.resetAt - resetAt > halfWindowMs) return;
      const laterWindow = resetAt - state.resetAt > halfWindowMs;
      state.consumed = laterWindow ? result.consumedPoints : Math.max(state.consumed, result.consumedPoints);
      state.resetAt = resetAt;
    } else {
      this.keys.set(key, { consumed: result.consumedPoints, resetAt, pending: 0 });
    }
  }
}

/** The shared counter's settings, apart from the client; exported so the bench's ceilings count in the very same table and way. */
export function counterOptions(keyPrefix: string, pointsPerMinute: number) {
  return {
    tableName: 'rate_limits',
    tableCreated: true, // created by migration 0001
    clearExpiredByTimeout: false, // expired rows are purged by the maintenance schedule
    keyPrefix,
    points: pointsPerMinute,
    duration: 60,
  };
}

/** One shared per-minute limit counted in PostgreSQL under `keyPrefix` (the dashboard's sign-in limits use it too). */
export function sharedLimiter(sequelize: Sequelize, keyPrefix: string, pointsPerMinute: number): SharedRateLimiter {
  return new SharedRateLimiter(new RateLimiterPostgres({ storeClient: sequelize, storeType: 'sequelize', ...counterOptions(keyPrefix, pointsPerMinute) }));
}

function middleware(limit: SharedRateLimiter, keyOf: (req: Request) => string): RequestHandler {
  return async (req: Request, res: Response, next) => {
    try {
      const remaining = await limit.consume(keyOf(req));
      res.setHeader('X-RateLimit-Limit', String(limit.points));
      res.setHeader('X-RateLimit-Remaining', String(Math.max(0, remaining)));
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil(err.msBeforeNext / 1000))));
      throw new AppError('RATE_LIMITED', 'Too many requests; retry after the number of seconds in Retry-After');
    }
    next();
  };
}

/**
 * The merchant a public write names: the `:merchantSlug` path parameter or the body's `merchantSlug`, as sent
 * (lowercased, as slugs are), before validation — the limit runs first, so an invalid body still counts. Counted
 * under its hash, like licence keys: a slug as sent can be any length or hold a NUL, which the counter's key
 * column would refuse (the fuzzer found that as a 500).
 */
function merchantSlugOf(req: Request): string {
  const body: unknown = req.body;
  return merchantCounter(req.params.merchantSlug ?? (typeof body === 'object' && body !== null ? (body as { merchantSlug?: unknown }).merchantSlug : undefined));
}

/** The counter of a merchant slug as sent; exported for the bench's ceilings. */
export function merchantCounter(slug: unknown): string {
  return createHash('sha256')
    .update(typeof slug === 'string' ? slug.toLowerCase() : '')
    .digest('base64url');
}

/**
 * The counter of a licence key as sent (before validation). Counted under its hash: the counter table holds no
 * usable key, and an absurdly long one costs no more. Exported for the bench's ceilings.
 */
export function licenseKeyCounter(key: unknown): string {
  return createHash('sha256')
    .update(typeof key === 'string' ? key : '')
    .digest('base64url');
}

/** The licence key a public licence route names: `:key`, or `?key=` of validate. */
const licenseKeyOf = (req: Request) => licenseKeyCounter(req.params.key ?? req.query.key);

/**
 * Per workspace and environment on authenticated routes; per client IP on public routes, and in addition per IP and
 * merchant on public writes and per key on the public licence routes.
 */
export function createRateLimits(sequelize: Sequelize, limits: { perWorkspacePerMinute: number; perIpPerMinute: number }): RateLimits {
  const perIpPerMerchant = (name: PublicWriteLimit) =>
    middleware(sharedLimiter(sequelize, `ipm:${name}`, PUBLIC_WRITE_LIMITS_PER_MINUTE[name]), (req) => `${req.ip ?? 'unknown'}:${merchantSlugOf(req)}`);
  return {
    perWorkspace: middleware(sharedLimiter(sequelize, 'ws', limits.perWorkspacePerMinute), (req) => `${req.auth?.accountId}:${req.auth?.environment}`),
    perIp: middleware(sharedLimiter(sequelize, 'ip', limits.perIpPerMinute), (req) => req.ip ?? 'unknown'),
    perIpPerMerchant: { validateDiscount: perIpPerMerchant('validateDiscount'), checkoutCreate: perIpPerMerchant('checkoutCreate') },
    perLicenseKey: middleware(sharedLimiter(sequelize, 'lic', LICENSE_KEY_LIMIT_PER_MINUTE), licenseKeyOf),
    perIpOrderTracker: middleware(sharedLimiter(sequelize, 'ord', ORDER_TRACKER_LIMIT_PER_MINUTE), (req) => req.ip ?? 'unknown'),
  };
}
