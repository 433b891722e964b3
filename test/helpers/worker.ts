import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Sequelize } from 'sequelize';
import { createLogger } from '../../lib/logger';
import { createWorker } from '../../worker/worker';

export interface RunningWorker {
  worker: Worker;
  taskQueue: string;
  stop(): Promise<void>;
}

/** A real worker on the shared dev server, with the suite's prebuilt bundle and real dependencies. */
export async function startTestWorker(sequelize: Sequelize, taskQueue: string): Promise<RunningWorker> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await createWorker({
    connection,
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue,
    deps: { sequelize, logger: createLogger('silent', 'worker-test') },
    workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
  });
  const running = worker.run();
  return {
    worker,
    taskQueue,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
