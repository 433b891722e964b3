import type { Request, RequestHandler, Response } from 'express';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Sequelize } from 'sequelize';
import { ApiError } from '../errors';

export interface RateLimits {
  perWorkspace: RequestHandler;
  perIp: RequestHandler;
}

function limiter(sequelize: Sequelize, keyPrefix: string, pointsPerMinute: number) {
  // The counters live in PostgreSQL so every API process enforces one shared limit.
  return new RateLimiterPostgres({
    storeClient: sequelize,
    storeType: 'sequelize',
    tableName: 'rate_limits',
    tableCreated: true, // created by migration 0001
    clearExpiredByTimeout: false, // expired rows are purged by the maintenance schedule
    keyPrefix,
    points: pointsPerMinute,
    duration: 60,
  });
}

function middleware(store: RateLimiterPostgres, keyOf: (req: Request) => string): RequestHandler {
  return async (req: Request, res: Response, next) => {
    try {
      const result = await store.consume(keyOf(req));
      res.setHeader('X-RateLimit-Limit', String(store.points));
      res.setHeader('X-RateLimit-Remaining', String(result.remainingPoints));
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil(err.msBeforeNext / 1000))));
      throw new ApiError('RATE_LIMITED', 'Too many requests; retry after the number of seconds in Retry-After');
    }
    next();
  };
}

/** Per workspace and environment on authenticated routes; per client IP on public ones. */
export function createRateLimits(sequelize: Sequelize, limits: { perWorkspacePerMinute: number; perIpPerMinute: number }): RateLimits {
  return {
    perWorkspace: middleware(limiter(sequelize, 'ws', limits.perWorkspacePerMinute), (req) => `${req.auth?.accountId}:${req.auth?.environment}`),
    perIp: middleware(limiter(sequelize, 'ip', limits.perIpPerMinute), (req) => req.ip ?? 'unknown'),
  };
}
