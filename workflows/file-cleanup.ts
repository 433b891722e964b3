import { proxyActivities, sleep } from '@temporalio/workflow';
import type { FileActivities } from '../activities/contracts/files';
import type { FileCleanupState } from '../domain/products/states';
import { lifecycleState } from './lifecycle';
import type { FileCleanupInput, FileCleanupOutcome } from './messages';

// Retried without a cap: giving up would leak the blob, and removing it is idempotent.
const { removeDeletedFileBlob } = proxyActivities<FileActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

/**
 * `file-cleanup:<fileId>`: started when an uploaded product file's row is deleted; waits on a durable timer
 * (a worker restart in between changes nothing), then removes the blob unless the row turns out to exist.
 */
export async function fileCleanup(input: FileCleanupInput): Promise<FileCleanupOutcome> {
  const lifecycle = lifecycleState<FileCleanupState>();
  lifecycle('waiting');
  await sleep(input.delayMs);
  const outcome = await removeDeletedFileBlob({ fileId: input.fileId, storageKey: input.storageKey });
  lifecycle(outcome);
  return outcome;
}
