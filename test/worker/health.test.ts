import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Sequelize } from 'sequelize';
import { createDatabase } from '../../db/connection';
import { ConfigError, loadConfig, requireDatabaseUrl } from '../../lib/config';
import { workerHealthRoutes } from '../../worker/health';
import { startProbeListener, type ProbeListener } from '../../lib/probe-listener';
import { createWorker } from '../../worker/worker';
import { BUILT_BUNDLE_PATH, prebuiltWorkflowBundle } from '../../worker/workflow-bundle';
import { freePort } from '../../scripts/lib/free-port';
import { usePrivateDatabase } from '../helpers/private-database';
import { waitFor } from '../helpers/wait';
import { testActivityDeps } from '../helpers/worker';
import { startWorkerProcess } from '../helpers/worker-process';

/**
 * The worker's own probes on WORKER_HEALTH_PORT: /healthz while the process is up, /readyz only while the Temporal
 * worker is RUNNING (polling its task queue). Against the suite's real Temporal dev server and PostgreSQL.
 */

// The worker process runs the outbox relays: a database of its own keeps other files' events out of its reach.
usePrivateDatabase('worker_health');

async function probe(port: number, pathname: string, method = 'GET'): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`http://127.0.0.1:${port}${pathname}`, { method });
  const text = await res.text();
  return { status: res.status, body: text && res.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(text) as unknown) : text };
}

describe('worker probes, in process', () => {
  let sequelize: Sequelize;
  beforeAll(() => {
    sequelize = createDatabase({ url: requireDatabaseUrl(loadConfig(process.env)), poolMax: 2 });
  });
  afterAll(() => sequelize.close());

  it('/readyz follows the worker: 503 before it runs, 200 while it polls, 503 once it has stopped; /healthz is 200 throughout', async () => {
    const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    const worker: Worker = await createWorker({
      connection,
      namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
      taskQueue: `worker-health-${Date.now()}`,
      deps: testActivityDeps(sequelize),
      workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
    });
    const probes: ProbeListener = await startProbeListener(0, workerHealthRoutes(() => worker.getState()));
    try {
      expect(await probe(probes.port, '/readyz')).toEqual({ status: 503, body: { status: 'not_ready', worker: 'INITIALIZED' } });
      expect(await probe(probes.port, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });

      const running = worker.run();
      expect(await waitFor(async () => (await probe(probes.port, '/readyz')).status === 200 && probe(probes.port, '/readyz'))).toEqual({
        status: 200,
        body: { status: 'ready', worker: 'RUNNING' },
      });

      worker.shutdown();
      await running;
      expect(await probe(probes.port, '/readyz')).toEqual({ status: 503, body: { status: 'not_ready', worker: 'STOPPED' } });
      expect((await probe(probes.port, '/healthz')).status).toBe(200);
    } finally {
      await probes.close();
      await connection.close();
    }
  }, 60_000);

  it('bounds its sticky cache by maxCachedWorkflows (WORKER_MAX_CACHED_WORKFLOWS), where the SDK would size it from the heap', async () => {
    const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    const worker = await createWorker({
      connection,
      namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
      taskQueue: `worker-cache-${Date.now()}`,
      deps: testActivityDeps(sequelize),
      workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
      maxCachedWorkflows: loadConfig({}).WORKER_MAX_CACHED_WORKFLOWS,
    });
    const running = worker.run();
    try {
      // The SDK's own default on this heap is far above it (about 2,300 on 4 GB).
      expect(worker.options.maxCachedWorkflows).toBe(500);
    } finally {
      worker.shutdown();
      await running;
      await connection.close();
    }
  }, 60_000);

  it('answers only GET and HEAD on its own paths', async () => {
    const probes = await startProbeListener(0, workerHealthRoutes(() => undefined));
    try {
      expect(await probe(probes.port, '/readyz')).toEqual({ status: 503, body: { status: 'not_ready', worker: 'STARTING' } });
      expect((await probe(probes.port, '/healthz', 'HEAD')).status).toBe(200);
      expect((await probe(probes.port, '/healthz?verbose=1')).status).toBe(200);
      expect((await probe(probes.port, '/metrics')).status).toBe(404);
      expect((await probe(probes.port, '/healthz', 'POST')).status).toBe(405);
    } finally {
      await probes.close();
    }
  });

  it('a route that throws answers 503, never a dropped connection', async () => {
    const probes = await startProbeListener(0, {
      '/readyz': () => {
        throw new Error('state unavailable');
      },
    });
    try {
      expect(await probe(probes.port, '/readyz')).toEqual({ status: 503, body: { status: 'error', error: 'state unavailable' } });
    } finally {
      await probes.close();
    }
  });
});

describe('worker process (`npm run worker`) on WORKER_HEALTH_PORT', () => {
  // A worker process keeps the namespace's maintenance schedule pointed at its task queue: a namespace of this
  // file's own keeps it from moving the schedule another file is checking.
  const namespace = `worker-health-${process.pid}-${Date.now()}`;
  beforeAll(async () => {
    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    try {
      await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    } finally {
      await connection.close();
    }
  });

  it('answers /healthz while it starts and /readyz only once it polls; the port closes when it stops', async () => {
    const port = await freePort();
    const worker = await startWorkerProcess({ WORKER_HEALTH_PORT: String(port), TEMPORAL_NAMESPACE: namespace, TEMPORAL_TASK_QUEUE: `worker-health-process-${Date.now()}` });
    try {
      expect(worker.output()).toContain('"workflowBundle":"prebuilt"');
      await waitFor(async () => (await probe(port, '/readyz')).status === 200, { describe: () => `/readyz of the worker process\n${worker.output()}` });
      expect(await probe(port, '/readyz')).toEqual({ status: 200, body: { status: 'ready', worker: 'RUNNING' } });
      expect(await probe(port, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    } finally {
      await worker.stop();
    }
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  }, 120_000);

  it('is live but not ready while Temporal does not answer', async () => {
    // Accepts connections and never speaks: the worker's Temporal connection hangs in start-up.
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const temporalPort = (silent.address() as { port: number }).port;
    const port = await freePort();
    const started = startWorkerProcess({ WORKER_HEALTH_PORT: String(port), TEMPORAL_NAMESPACE: namespace, TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}` }, { timeoutMs: 60_000 });
    started.catch(() => undefined);
    try {
      await waitFor(() => probe(port, '/healthz').then((r) => r.status === 200, () => false), { timeoutMs: 30_000 });
      expect(await probe(port, '/readyz')).toEqual({ status: 503, body: { status: 'not_ready', worker: 'STARTING' } });
    } finally {
      silent.close();
      for (const socket of sockets) socket.destroy();
      // It gives up on Temporal and exits non-zero, which is what the restart policy is for.
      await expect(started).rejects.toThrow(/exited with code 1 before it started/);
    }
  }, 120_000);

  it('refuses to start on a port that is taken, saying so', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      await expect(startWorkerProcess({ WORKER_HEALTH_PORT: String(port), TEMPORAL_NAMESPACE: namespace }, { timeoutMs: 30_000 })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      taken.close();
    }
  }, 60_000);
});

describe('which workflow bundle the worker loads', () => {
  const config = (env: Record<string, string> = {}) => loadConfig({ ...env });

  it('from TypeScript sources with no WORKFLOW_BUNDLE_PATH: none, so workflows/ is bundled at start', () => {
    expect(prebuiltWorkflowBundle(config(), '/app/worker/main.ts')).toBeUndefined();
  });

  it('compiled (dist/worker/main.js): the built dist/workflow-bundle.js, and a clear stop when the build left none', () => {
    expect(BUILT_BUNDLE_PATH).toBe(path.resolve(__dirname, '..', '..', 'workflow-bundle.js'));
    expect(() => prebuiltWorkflowBundle(config(), '/app/dist/worker/main.js')).toThrow(ConfigError);
    expect(() => prebuiltWorkflowBundle(config(), '/app/dist/worker/main.js')).toThrow(/run `npm run build`/);
  });

  it('WORKFLOW_BUNDLE_PATH wins from sources and compiled code alike, and must exist', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bundle-'));
    const file = path.join(dir, 'bundle.js');
    await writeFile(file, '// bundle');
    for (const entry of ['/app/worker/main.ts', '/app/dist/worker/main.js']) {
      expect(prebuiltWorkflowBundle(config({ WORKFLOW_BUNDLE_PATH: file }), entry)).toEqual({ codePath: file });
    }
    expect(() => prebuiltWorkflowBundle(config({ WORKFLOW_BUNDLE_PATH: path.join(dir, 'missing.js') }), '/app/dist/worker/main.js')).toThrow(
      /^Invalid configuration:\n {2}- WORKFLOW_BUNDLE_PATH: .*missing\.js does not exist/,
    );
  });
});
