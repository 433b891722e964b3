import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { createDataConverter } from '../lib/payload-codec';
import type { Tracing } from '../lib/tracing-setup';
import { activityInterceptors, workflowSpanSinks } from './telemetry';
import { buildWorkflowBundle } from './workflow-bundle';

export interface WorkerSetup {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** A prebuilt bundle (`npm run build`, or the tests' one per run); without it workflows/ is bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** The process's tracing (worker/tracing.ts); off when absent. */
  tracing?: Tracing;
  /** WORKER_MAX_CACHED_WORKFLOWS; the SDK's heap-sized default when absent. */
  maxCachedWorkflows?: number;
}

const NO_TRACING: Tracing = { enabled: false, shutdown: async () => undefined };

/** The worker that runs every workflow in workflows/ and every activity in activities/. */
export async function createWorker({ connection, namespace, taskQueue, deps, workflowBundle, tracing = NO_TRACING, maxCachedWorkflows }: WorkerSetup): Promise<Worker> {
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    activities: createActivities(deps),
    // The workflow interceptors are in the bundle (worker/workflow-bundle.ts); their spans arrive through these sinks.
    interceptors: { activity: activityInterceptors(tracing) },
    sinks: workflowSpanSinks(tracing),
    // Codecs run in the worker's main thread, outside the workflow sandbox, so a prebuilt bundle needs nothing of them.
    dataConverter: createDataConverter(deps.box.keyRing),
    workflowBundle: workflowBundle ?? { code: await buildWorkflowBundle() },
    ...(maxCachedWorkflows !== undefined ? { maxCachedWorkflows } : {}),
  });
}
