import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { createDatabase } from '../db/connection';
import { ConfigError, loadConfig, requireDatabaseUrl } from '../lib/config';
import { createLogger } from '../lib/logger';
import { ensureSchedules } from './schedules';
import { ensureSearchAttributes } from './search-attributes';
import { createWorker } from './worker';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, 'worker');
  const sequelize = createDatabase({ url: requireDatabaseUrl(config), poolMax: config.DATABASE_POOL_MAX });

  const clientConnection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  await ensureSearchAttributes(clientConnection, config.TEMPORAL_NAMESPACE);
  await ensureSchedules(new Client({ connection: clientConnection, namespace: config.TEMPORAL_NAMESPACE }), config.TEMPORAL_TASK_QUEUE);
  await clientConnection.close();

  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const worker = await createWorker({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    deps: { sequelize, logger },
  });
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE }, 'worker started');
  // Worker.run resolves after SIGINT/SIGTERM, once in-flight tasks have finished.
  await worker.run();
  await connection.close();
  await sequelize.close();
  logger.info('worker stopped');
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
