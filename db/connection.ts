import { Sequelize } from 'sequelize';
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
