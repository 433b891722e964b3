import type { Readable } from 'node:stream';
import { ulid } from 'ulid';
import { createLocalDiskStorage } from './local-disk';

/**
 * The longest an upload may take: the API's whole-request deadline. 500 MB then needs ~140 KB/s. Temporary
 * data older than twice this belongs to no live request.
 */
export const MAX_UPLOAD_DURATION_MS = 60 * 60 * 1000;

/**
 * Where uploaded product files live. Keys are `/`-separated relative paths. Implementations stream: a
 * blob is never held in memory whole, whatever its size.
 */
export interface BlobStorage {
  /**
   * Streams `body` to `key` and returns the bytes written. The blob appears under `key` only once complete;
   * if `body` errors (a size or quota limit, a broken upload) the write fails and leaves nothing behind.
   */
  put(key: string, body: Readable): Promise<{ size: number }>;
  /**
   * The blob under `key` to stream, with its size; null when there is none. The blob is opened before this
   * resolves, so one removed afterwards still streams whole (a download that started is served to its end).
   * The caller must consume or destroy `body`.
   */
  open(key: string): Promise<{ body: Readable; size: number } | null>;
  /** Idempotent: removing a missing blob succeeds. */
  remove(key: string): Promise<void>;
  /**
   * Removes temporary data of writes untouched since `before` (a process killed mid-upload leaves it behind)
   * and returns how many went. A live write touches its data with every chunk, so it is never taken.
   */
  sweepAbandonedWrites(before: Date): Promise<number>;
}

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
