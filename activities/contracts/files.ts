import type { FileCleanupInput, FileCleanupOutcome } from '../../workflows/messages';

/** The file-cleanup workflow's activity (activities/files.ts). */
export type FileActivities = {
  removeDeletedFileBlob(input: Pick<FileCleanupInput, 'fileId' | 'storageKey'>): Promise<FileCleanupOutcome>;
};
