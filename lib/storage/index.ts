import { ulid } from 'ulid';
import type { BlobStorage } from './blob-storage';
import { createLocalDiskStorage } from './local-disk';

export type { BlobStorage } from './blob-storage';

/**
 * The longest an upload may take: the API's whole-request deadline. 500 MB then needs ~140 KB/s. Temporary
 * data older than twice this belongs to no live request.
 */
export const MAX_UPLOAD_DURATION_MS = 60 * 60 * 1000;

export function createStorage(config: { FILE_STORAGE_DIR: string }): BlobStorage {
  return createLocalDiskStorage(config.FILE_STORAGE_DIR);
}

/** A file name made safe as one key segment: no separators, no dot-only names, a portable character set. */
export function sanitizeKeySegment(fileName: string): string {
  const safe = fileName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(-120);
  return safe || 'file';
}

/** `<accountId>/<productId>/<ULID>/<sanitised name>`: unique per upload, readable in a bucket listing. */
export function productFileKey(accountId: string, productId: string, fileName: string): string {
  return `${accountId}/${productId}/${ulid()}/${sanitizeKeySegment(fileName)}`;
}
