import { Sequelize } from 'sequelize';
import type { PoolStats } from '../lib/metrics';
import { initModels } from './models';
import { installRequestTransactionLookup, nestInRequestTransaction } from './request-transaction';

export interface DatabaseOptions {
  url: string;
  poolMax?: number;
  logging?: (sql: string) => void;
  /** Names the connections in pg_stat_activity. */
  applicationName?: string;
}

/** One Sequelize instance per process, with every model registered, whose work joins a request's transaction inside one. */
export function createDatabase({ url, poolMax = 10, logging, applicationName }: DatabaseOptions): Sequelize {
  installRequestTransactionLookup();
  const sequelize = new Sequelize(url, {
    dialect: 'postgres',
    logging: logging ?? false,
    pool: { max: poolMax, min: 0, idle: 10_000 },
    define: { underscored: true },
    ...(applicationName ? { dialectOptions: { application_name: applicationName } } : {}),
  });
  initModels(sequelize);
  nestInRequestTransaction(sequelize);
  return sequelize;
}

/** Sequelize's connection pool (sequelize-pool; one pool, as no replication is configured), missing from its typings. */
interface SequelizePool {
  size: number;
  available: number;
  using: number;
  waiting: number;
  maxSize: number;
}

/** The pool's sizes now, for the metrics' gauges (lib/metrics.ts). */
export function poolStats(sequelize: Sequelize): PoolStats {
  const pool = (sequelize.connectionManager as unknown as { pool: SequelizePool }).pool;
  return { size: pool.size, inUse: pool.using, idle: pool.available, waiting: pool.waiting, max: pool.maxSize };
}
