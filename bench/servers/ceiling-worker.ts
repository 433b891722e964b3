import { NativeConnection, Worker } from '@temporalio/worker';
import { createKeyRing, generateEncryptionKey, parseEncryptionKey } from '../../lib/crypto-box';
import { createDataConverter } from '../../lib/payload-codec';

/**
 * Ceiling worker for the webhook fan-out bench: the same Worker defaults as worker/worker.ts, serving only
 * the empty workflow, on the same dev server. Env: TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE.
 */
async function main(): Promise<void> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue: process.env.TEMPORAL_TASK_QUEUE ?? 'bench-ceiling',
    workflowsPath: require.resolve('../workflows/empty'),
    // The service worker's codec: the ceiling's clients encrypt under ENCRYPTION_KEY.
    dataConverter: createDataConverter(createKeyRing(parseEncryptionKey(process.env.ENCRYPTION_KEY ?? generateEncryptionKey()))),
  });
  console.log(JSON.stringify({ msg: 'worker started' }));
  await worker.run();
  await connection.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
