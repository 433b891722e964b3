import { proxyActivities, sleep } from '@temporalio/workflow';
import type { createActivities } from '../activities';

// Retried without a cap: giving up would leak the blob, and removing it is idempotent.
const { removeDeletedFileBlob } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

export interface FileCleanupInput {
  fileId: string;
  storageKey: string;
  /** FILE_CLEANUP_DELAY of the API that deleted the row, fixed at start so a config change cannot alter a running timer. */
  delayMs: number;
}

/**
 * `file-cleanup:<fileId>`: started when an uploaded product file's row is deleted; waits on a durable timer
 * (a worker restart in between changes nothing), then removes the blob unless the row turns out to exist.
 */
export async function fileCleanup(input: FileCleanupInput): Promise<'removed' | 'kept'> {
  await sleep(input.delayMs);
  return removeDeletedFileBlob({ fileId: input.fileId, storageKey: input.storageKey });
}
