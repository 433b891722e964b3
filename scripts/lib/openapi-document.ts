import { Connection } from '@temporalio/client';
import { createTemporalClient } from '../../lib/temporal-client';
import { createDatabase } from '../../db/connection';
import { createApp } from '../../api/app';
import { loadConfig, requireEncryptionKey } from '../../lib/config';
import { createCryptoBox, generateEncryptionKey } from '../../lib/crypto-box';
import { createLogger } from '../../lib/logger';

/**
 * The OpenAPI document of the routes the API serves (createApp), built over a database and a Temporal connection
 * that are never opened, so no server needs to run. `env` is the configuration it is built under (the server URL
 * and the limits named in descriptions come from it).
 */
export async function buildOpenApiDocument(env: NodeJS.ProcessEnv): Promise<unknown> {
  // No key cache listener (AUTH_CACHE_TTL=0s): it is the one thing createApp would connect. Nothing is sealed, so
  // any key will do where none is configured.
  const config = loadConfig({ ENCRYPTION_KEY: generateEncryptionKey(), ...env, AUTH_CACHE_TTL: '0s' });
  const sequelize = createDatabase({ url: config.DATABASE_URL ?? 'postgres://openapi@127.0.0.1:1/unused' });
  const box = createCryptoBox(requireEncryptionKey(config));
  const temporal = createTemporalClient({ connection: Connection.lazy({ address: config.TEMPORAL_ADDRESS }), namespace: config.TEMPORAL_NAMESPACE, keyRing: box.keyRing });
  try {
    return createApp({
      config,
      sequelize,
      temporal,
      logger: createLogger('silent', 'openapi'),
      box,
    }).document;
  } finally {
    await sequelize.close();
  }
}
