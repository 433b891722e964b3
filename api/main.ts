// First: tracing patches http and pg only for the modules loaded after it.
import { tracing } from './tracing';
import type { AddressInfo } from 'node:net';
import { createDatabase, poolStats } from '../db/connection';
import { ConfigError, loadConfig, requireDatabaseUrl, requireKeyRing } from '../lib/config';
import { createCryptoBox } from '../lib/crypto-box';
import { createLogger } from '../lib/logger';
import { collectProcessMetrics, metricsAnswer, watchDatabasePool } from '../lib/metrics';
import { startProbeListener } from '../lib/probe-listener';
import { createApp } from './app';
import { listen } from './server';
import { connectTemporal } from './temporal-client';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, 'api');
  const sequelize = createDatabase({ url: requireDatabaseUrl(config), poolMax: config.DATABASE_POOL_MAX });
  const box = createCryptoBox(requireKeyRing(config));
  const temporal = await connectTemporal({ address: config.TEMPORAL_ADDRESS, namespace: config.TEMPORAL_NAMESPACE, keyRing: box.keyRing });
  const api = createApp({ config, sequelize, temporal, logger, box });
  collectProcessMetrics();
  watchDatabasePool(() => poolStats(sequelize));
  // Apart from PORT, so the public never reaches it.
  const metrics = config.METRICS_PORT === undefined ? null : await startProbeListener(config.METRICS_PORT, { '/metrics': metricsAnswer });
  if (metrics) logger.info({ url: `http://127.0.0.1:${metrics.port}/metrics` }, 'api metrics listening');
  const server = await listen(api.app, config.PORT, logger, async () => {
    await metrics?.close();
    await api.close();
    await temporal.connection.close();
    await sequelize.close();
    await tracing.shutdown();
  });
  logger.info({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api` }, 'api listening');
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
