import { createServer } from 'node:net';
import { makeTelemetryFilterString, Runtime } from '@temporalio/worker';
import type { Sequelize } from 'sequelize';
import { poolStats } from '../db/connection';
import { readRelayBacklog } from '../db/relay-backlog';
import { collectProcessMetrics, METRICS_CONTENT_TYPE, renderMetrics, watchDatabasePool, watchRelayBacklog } from '../lib/metrics';
import type { Logger } from '../lib/logger';
import type { ProbeRoute } from '../lib/probe-listener';
import { sdkLogger } from './telemetry';

/** How long a scrape waits for the SDK's exporter on loopback before answering without its metrics. */
const SDK_SCRAPE_TIMEOUT_MS = 5_000;

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * The Temporal SDK's own worker metrics (task slots, poll and schedule-to-start latencies, workflow task failures,
 * sticky cache, …) come from its Rust core, whose Prometheus exporter serves them on a port of its own. That port is
 * bound to loopback only and read by the worker's /metrics, which appends them to the service's metrics, so
 * Prometheus scrapes one address per worker. Names follow Prometheus' conventions: seconds for durations, unit and
 * `_total` suffixes (docs/metrics.md). Must run before the first connection or worker is made: it installs the
 * process's Temporal runtime, once, with the SDK's logs (and the core's warnings, forwarded) going through `logger`.
 */
export async function installSdkMetrics(logger: Logger): Promise<string> {
  const port = await freeLoopbackPort();
  Runtime.install({
    logger: sdkLogger(logger),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} },
      metrics: { prometheus: { bindAddress: `127.0.0.1:${port}`, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true } },
    },
  });
  return `http://127.0.0.1:${port}/metrics`;
}

async function sdkMetrics(url: string): Promise<string> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(SDK_SCRAPE_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`status ${response.status}`);
    return await response.text();
  } catch (err) {
    // The service's metrics are still worth a scrape; the comment says why the SDK's are missing from this one.
    return `# Temporal SDK metrics unavailable: ${err instanceof Error ? err.message : String(err)}\n`;
  }
}

/** The worker's GET /metrics (WORKER_HEALTH_PORT): the service's metrics, then the SDK's from `sdkMetricsUrl`. */
export function workerMetricsRoute(sdkMetricsUrl: string): ProbeRoute {
  return async () => {
    const [own, sdk] = await Promise.all([renderMetrics(), sdkMetrics(sdkMetricsUrl)]);
    return { status: 200, body: `${own}${own.endsWith('\n') ? '' : '\n'}${sdk}`, contentType: METRICS_CONTENT_TYPE };
  };
}

/** The gauges the worker reads from its database at each scrape: its pool, and the outbox and start relays' backlog. */
export function watchWorkerDatabase(sequelize: Sequelize): void {
  collectProcessMetrics();
  watchDatabasePool(() => poolStats(sequelize));
  watchRelayBacklog(() => readRelayBacklog(sequelize));
}
