import type { ActivityDeps } from '../activities';
import { createDatabase } from '../db/connection';
import { createTextGenerator } from '../lib/ai';
import { requireDatabaseUrl, requireKeyRing, type Config } from '../lib/config';
import { createCryptoBox } from '../lib/crypto-box';
import { createMailer } from '../lib/email';
import type { Logger } from '../lib/logger';
import { createStorage } from '../lib/storage';

/** Builds the activities' dependencies once per worker process from validated configuration. */
export function createActivityDeps(config: Config, logger: Logger): ActivityDeps {
  return {
    sequelize: createDatabase({ url: requireDatabaseUrl(config), poolMax: config.DATABASE_POOL_MAX }),
    logger,
    config,
    box: createCryptoBox(requireKeyRing(config)),
    storage: createStorage(config),
    textGenerator: createTextGenerator(config),
    mailer: createMailer(config),
  };
}
