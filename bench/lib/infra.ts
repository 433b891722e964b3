import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createWorkspaceService } from '../../domain/workspaces';
import { createDatabase } from '../../db/connection';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../db/embedded-postgres';
import { migrateToLatest } from '../../db/migrate';
import { ApiKey } from '../../db/models';
import { mintKey } from '../../lib/api-key-secrets';
import { createCryptoBox, generateEncryptionKey, parseEncryptionKey } from '../../lib/crypto-box';
import { newId } from '../../lib/ids';
import { createDevServerEnv } from '../../test/helpers/temporal-env';
import { freePort } from '../../scripts/lib/free-port';
import { seedCatalogue, type BenchCatalogue } from './catalogue';
import { seedPayouts } from './payouts';
import { seedInventory, type BenchInventory } from './inventory';
import { seedLicences, type BenchLicences } from './licences';

/** Extra test-environment keys, on top of the workspace's own two, so the list route returns a real page. */
export const EXTRA_API_KEYS = 20;

export interface BenchInfra {
  databaseUrl: string;
  temporalAddress: string;
  encryptionKey: string;
  workspace: { accountId: string; secretKey: string };
  /** Rows the api-keys list returns for the workspace's test environment. */
  testApiKeyCount: number;
  /** Workspaces of the product scenarios (bench/lib/catalogue.ts). */
  catalogue: BenchCatalogue;
  /** The payout-create workspace (bench/lib/payouts.ts). */
  payouts: { accountId: string; secretKey: string };
  /** Licence pools of the public licence scenarios (bench/lib/licences.ts). */
  licences: BenchLicences;
  /** The one stock-tracked variant of the inventory scenarios (bench/lib/inventory.ts). */
  inventory: BenchInventory;
  stop(): Promise<void>;
}

/** Its own PostgreSQL (throwaway, migrated, seeded) and its own Temporal dev server. */
export async function startInfra(log: (line: string) => void, onPostgresLog?: (line: string) => void): Promise<BenchInfra> {
  const root = await mkdtemp(path.join(tmpdir(), 'commerce-bench-'));
  const stops: Array<() => Promise<void>> = [() => rm(root, { recursive: true, force: true })];
  const stop = async () => {
    for (const fn of stops.splice(0).reverse()) {
      await fn().catch((err: unknown) => log(`cleanup step failed: ${String(err)}`));
    }
  };

  try {
    log('starting embedded PostgreSQL');
    const pg: EmbeddedDatabase = await startEmbeddedPostgres({ dataDir: path.join(root, 'pg'), port: await freePort(), persistent: false, onLog: onPostgresLog });
    stops.push(() => pg.stop());
    await pg.createDatabase('commerce_bench');
    const databaseUrl = pg.url('commerce_bench');

    const sequelize = createDatabase({ url: databaseUrl, poolMax: 2 });
    // Before the seed: the payout workspace's bank account is sealed with it.
    const encryptionKey = generateEncryptionKey();
    let workspace: BenchInfra['workspace'];
    let catalogue: BenchCatalogue;
    let payouts: BenchInfra['payouts'];
    let licences: BenchLicences;
    let inventory: BenchInventory;
    try {
      await migrateToLatest(sequelize);
      const created = await createWorkspaceService({ sequelize }).create({ name: 'Bench workspace', slug: 'bench' });
      workspace = { accountId: created.accountId, secretKey: created.secretKey };
      await ApiKey.bulkCreate(
        Array.from({ length: EXTRA_API_KEYS }, (_, i) => {
          const minted = mintKey('test', i % 4 === 0 ? 'publishable' : 'secret');
          return {
            id: newId('key'),
            accountId: created.accountId,
            environment: 'test' as const,
            access: i % 4 === 0 ? ('publishable' as const) : ('secret' as const),
            name: `Bench key ${i + 1}`,
            prefix: minted.prefix,
            last4: minted.last4,
            keyHash: minted.hash,
          };
        }),
      );
      catalogue = await seedCatalogue(sequelize);
      payouts = await seedPayouts(sequelize, createCryptoBox(parseEncryptionKey(encryptionKey)));
      licences = await seedLicences(sequelize);
      inventory = await seedInventory(sequelize);
      await sequelize.query('ANALYZE');
    } finally {
      await sequelize.close();
    }

    log('starting Temporal dev server');
    const temporal: TestWorkflowEnvironment = await createDevServerEnv();
    stops.push(() => temporal.teardown());

    return {
      databaseUrl,
      temporalAddress: temporal.address,
      encryptionKey,
      workspace,
      testApiKeyCount: 2 + EXTRA_API_KEYS,
      catalogue,
      payouts,
      licences,
      inventory,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** What a `worker/main.ts` child of the bench needs to reach the run's PostgreSQL and Temporal, on its own task queue. */
export function workerProcessEnv(infra: BenchInfra, poolSize: number, taskQueue: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info', // startWorkerProcess waits for the info-level "worker started" line
    DATABASE_URL: infra.databaseUrl,
    DATABASE_POOL_MAX: String(poolSize),
    TEMPORAL_ADDRESS: infra.temporalAddress,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: taskQueue,
    ENCRYPTION_KEY: infra.encryptionKey,
    // Several workers may run at once: each takes a free port for its probes.
    WORKER_HEALTH_PORT: '0',
  };
}
