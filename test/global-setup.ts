import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDatabase } from '../db/connection';
import { startEmbeddedPostgres } from '../db/embedded-postgres';
import { migrateToLatest } from '../db/migrate';
import { generateEncryptionKey } from '../lib/crypto-box';
import { freePort } from '../scripts/lib/free-port';
import { provisionTemporalBinaries } from '../scripts/lib/temporal-binaries';
import { buildWorkflowBundle } from '../worker/workflow-bundle';
import { createDevServerEnv } from './helpers/temporal-env';

/**
 * Starts what the whole suite shares, once: a real PostgreSQL (migrated), a real Temporal dev server and
 * one workflow bundle. Test files reach them through the environment variables set here.
 */
export default async function globalSetup(): Promise<void> {
  await provisionTemporalBinaries(['cli', 'test-server', 'seaweedfs'], 'npm test runs workflows on a Temporal dev server and the time-skipping test server, and blob storage on SeaweedFS');
  const root = await mkdtemp(path.join(tmpdir(), 'commerce-test-'));
  // Two test files at once share this server, and the scale-out test's production-shaped Temporal server keeps up to
  // 30 connections per service on it beside its API and worker processes' pools: past PostgreSQL's default of 100.
  const pg = await startEmbeddedPostgres({ dataDir: path.join(root, 'pg'), port: await freePort(), persistent: false, maxConnections: 400 });
  await pg.createDatabase('commerce_test');
  const databaseUrl = pg.url('commerce_test');
  const sequelize = createDatabase({ url: databaseUrl });
  await migrateToLatest(sequelize);
  await sequelize.close();

  const temporal = await createDevServerEnv();
  const bundlePath = path.join(root, 'workflow-bundle.js');
  await writeFile(bundlePath, await buildWorkflowBundle());

  Object.assign(process.env, {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: 'default',
    WORKFLOW_BUNDLE_PATH: bundlePath,
    // Worker processes the tests start (several at once) each take a free port for their probes.
    WORKER_HEALTH_PORT: '0',
    ENCRYPTION_KEY: generateEncryptionKey(),
    // Every test file's public requests share the per-IP counter of 127.0.0.1; files that test the limit set their own.
    PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
    // Uploaded files of the whole run go to the run's temp directory, never into the checkout's .data.
    FILE_STORAGE_DIR: path.join(root, 'files'),
  });
  (globalThis as Record<string, unknown>).__COMMERCE_TEST__ = { pg, temporal };
}
