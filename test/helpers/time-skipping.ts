import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker, type WorkerOptions } from '@temporalio/worker';
import { testDataConverter } from './temporal-codec';
import { createTimeSkippingEnv } from './temporal-env';

export interface TimeSkippingWorkerOptions {
  /** Workflows module to bundle once for the describe; default: the suite's bundle of workflows/index.ts. */
  workflowsPath?: string;
  /** Activities of every run unless the run names its own. */
  activities?: object;
}

export interface RunOptions {
  /** Default: a task queue of the run's own, so no other run's workflows reach this worker. */
  taskQueue?: string;
  /** For activities built from what other beforeAll hooks create (a database, a server). */
  activities?: object;
}

export interface TimeSkippingWorker {
  /** The describe's time-skipping environment (after beforeAll): `client`, `sleep`, `connection`. */
  readonly env: TestWorkflowEnvironment;
  /** Runs `fn` while a worker polls `taskQueue`; the worker is shut down once `fn` settles. */
  run<R>(fn: (env: TestWorkflowEnvironment, taskQueue: string) => Promise<R>, options?: RunOptions): Promise<R>;
}

/**
 * Call inside a `describe`: starts a Java time-skipping test server (and bundles `workflowsPath`) in
 * beforeAll and stops it in afterAll. A worker lives for one `run`, so each test sees only its own activities.
 */
export function useTimeSkippingWorker(options: TimeSkippingWorkerOptions = {}): TimeSkippingWorker {
  let env: TestWorkflowEnvironment | undefined;
  let workflowBundle: WorkerOptions['workflowBundle'];
  let runs = 0;

  beforeAll(async () => {
    workflowBundle = options.workflowsPath
      ? { code: (await bundleWorkflowCode({ workflowsPath: options.workflowsPath })).code }
      : { codePath: process.env.WORKFLOW_BUNDLE_PATH! };
    env = await createTimeSkippingEnv();
  }, 120_000);

  afterAll(async () => {
    await env?.teardown();
  });

  const started = (): TestWorkflowEnvironment => {
    if (!env) throw new Error('useTimeSkippingWorker: the environment exists only from beforeAll to afterAll');
    return env;
  };

  return {
    get env() {
      return started();
    },
    async run(fn, { taskQueue = `time-skipping-${++runs}`, activities = options.activities } = {}) {
      const current = started();
      const worker = await Worker.create({
        connection: current.nativeConnection,
        namespace: current.namespace ?? 'default',
        taskQueue,
        workflowBundle,
        activities,
        dataConverter: testDataConverter(),
      });
      return worker.runUntil(() => fn(current, taskQueue));
    },
  };
}
