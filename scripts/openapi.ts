/**
 * `npm run -s openapi`: prints the OpenAPI document as JSON on stdout. It declares the same routes the API serves
 * (createApp), over a database and a Temporal connection that are never opened, so no server needs to run.
 */
import { Connection, Client } from '@temporalio/client';
import { createDatabase } from '../db/connection';
import { createApp } from '../api/app';
import { loadConfig, requireEncryptionKey } from '../lib/config';
import { createCryptoBox, generateEncryptionKey } from '../lib/crypto-box';
import { createLogger } from '../lib/logger';

async function main(): Promise<void> {
  // No key cache listener (AUTH_CACHE_TTL=0s): it is the one thing createApp would connect. Nothing is sealed, so
  // any key will do where none is configured.
  const config = loadConfig({ ENCRYPTION_KEY: generateEncryptionKey(), ...process.env, AUTH_CACHE_TTL: '0s' });
  const sequelize = createDatabase({ url: config.DATABASE_URL ?? 'postgres://openapi@127.0.0.1:1/unused' });
  const temporal = new Client({ connection: Connection.lazy({ address: config.TEMPORAL_ADDRESS }), namespace: config.TEMPORAL_NAMESPACE });
  const api = createApp({
    config,
    sequelize,
    temporal,
    logger: createLogger('silent', 'openapi'),
    box: createCryptoBox(requireEncryptionKey(config)),
  });
  // A pipe's writes are asynchronous: exit only once the whole document has been handed over.
  await new Promise<void>((resolve, reject) => process.stdout.write(`${JSON.stringify(api.document, null, 2)}\n`, (err) => (err ? reject(err) : resolve())));
  await sequelize.close();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
