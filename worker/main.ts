// First: tracing patches http and pg only for the modules loaded after it.
import { tracing } from './tracing';
import { Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { createStarters } from '../domain/workflow-starters';
import { ConfigError, loadConfig, requireDatabaseUrl } from '../lib/config';
import { createLogger } from '../lib/logger';
import { createTemporalClient } from '../lib/temporal-client';
import { workerHealthRoutes } from './health';
import { installSdkMetrics, watchWorkerDatabase, workerMetricsRoute } from './metrics';
import { startProbeListener } from '../lib/probe-listener';
import { ensureSchedules } from './schedules';
import { ensureSearchAttributes } from './search-attributes';
import { createActivityDeps } from './deps';
import { startOutboxRelay } from './outbox-relay';
import { startStartRelay } from './start-relay';
import { createWorker } from './worker';
import { prebuiltWorkflowBundle } from './workflow-bundle';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, 'worker');
  const workflowBundle = prebuiltWorkflowBundle(config, __filename);
  const started: { worker?: Worker } = {};
  const sdkMetricsUrl = await installSdkMetrics(logger);
  // Up before Temporal is reached, so /healthz answers during start-up while /readyz says not yet.
  const probes = await startProbeListener(config.WORKER_HEALTH_PORT, {
    ...workerHealthRoutes(() => started.worker?.getState()),
    '/metrics': workerMetricsRoute(sdkMetricsUrl),
  });
  logger.info({ port: probes.port }, 'worker health listening (/healthz, /readyz, /metrics)');
  const deps = createActivityDeps(config, logger);
  watchWorkerDatabase(deps.sequelize);

  const clientConnection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  await ensureSearchAttributes(clientConnection, config.TEMPORAL_NAMESPACE);
  // Kept open: the relays start workflows through it.
  const client = createTemporalClient({ connection: clientConnection, namespace: config.TEMPORAL_NAMESPACE, keyRing: deps.box.keyRing });
  await ensureSchedules(client, { taskQueue: config.TEMPORAL_TASK_QUEUE, settlementSweepIntervalMs: config.SETTLEMENT_SWEEP_INTERVAL });

  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const worker = await createWorker({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    deps,
    workflowBundle,
    tracing,
    maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
  });
  started.worker = worker;
  logger.info(
    { taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE, workflowBundle: workflowBundle ? 'prebuilt' : 'bundled from source' },
    'worker started',
  );
  if (!config.SMTP_URL) logger.warn('SMTP_URL is not set: buyer e-mails wait (retried for a day) until the worker runs with it');
  const starters = createStarters(client, { taskQueue: config.TEMPORAL_TASK_QUEUE });
  const databaseUrl = requireDatabaseUrl(config);
  const relays = [
    startOutboxRelay({ sequelize: deps.sequelize, starters, databaseUrl, retrySchedule: config.WEBHOOK_RETRY_SCHEDULE, logger }),
    startStartRelay({ sequelize: deps.sequelize, starters, databaseUrl, logger }),
  ];
  // Worker.run resolves after SIGINT/SIGTERM, once in-flight tasks have finished.
  await worker.run();
  await Promise.all(relays.map((relay) => relay.stop()));
  await clientConnection.close();
  await connection.close();
  await deps.sequelize.close();
  deps.mailer.close();
  await probes.close();
  await tracing.shutdown();
  logger.info('worker stopped');
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
