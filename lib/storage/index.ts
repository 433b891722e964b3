import type { Readable } from 'node:stream';
import { ulid } from 'ulid';
import { createLocalDiskStorage } from './local-disk';

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
  /** Idempotent: removing a missing blob succeeds. */
  remove(key: string): Promise<void>;
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
