import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Sequelize } from 'sequelize';
import type { ActivityDeps } from '../../activities';
import { createTextGenerator } from '../../lib/ai';
import { loadConfig, requireKeyRing } from '../../lib/config';
import { createCryptoBox } from '../../lib/crypto-box';
import { createMailer } from '../../lib/email';
import { createLogger } from '../../lib/logger';
import { createStorage } from '../../lib/storage';
import { createWorker } from '../../worker/worker';

export interface RunningWorker {
  worker: Worker;
  taskQueue: string;
  stop(): Promise<void>;
}

/** Real activity dependencies for tests: configuration from the suite's environment plus `overrides`. */
export function testActivityDeps(sequelize: Sequelize, overrides: Partial<ActivityDeps> = {}): ActivityDeps {
  const config = overrides.config ?? loadConfig(process.env);
  return {
    sequelize,
    logger: createLogger('silent', 'worker-test'),
    config,
    box: createCryptoBox(requireKeyRing(config)),
    storage: createStorage(config),
    textGenerator: createTextGenerator(config),
    mailer: createMailer(config),
    ...overrides,
  };
}

/** A real worker on the shared dev server, with the suite's prebuilt bundle and real dependencies. */
export async function startTestWorker(sequelize: Sequelize, taskQueue: string, overrides: Partial<ActivityDeps> = {}): Promise<RunningWorker> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await createWorker({
    connection,
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue,
    deps: testActivityDeps(sequelize, overrides),
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
