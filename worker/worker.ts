import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { createDataConverter } from '../lib/payload-codec';
import { buildWorkflowBundle } from './workflow-bundle';

export interface WorkerSetup {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** A prebuilt bundle (`npm run build`, or the tests' one per run); without it workflows/ is bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

/** The worker that runs every workflow in workflows/ and every activity in activities/. */
export async function createWorker({ connection, namespace, taskQueue, deps, workflowBundle }: WorkerSetup): Promise<Worker> {
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    activities: createActivities(deps),
    // Codecs run in the worker's main thread, outside the workflow sandbox, so a prebuilt bundle needs nothing of them.
    dataConverter: createDataConverter(deps.box.keyRing),
    workflowBundle: workflowBundle ?? { code: await buildWorkflowBundle() },
  });
}
