import type { Readable } from 'node:stream';

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

/** Keys are relative `/`-separated paths: no empty, `.` or `..` segment and no backslash, on every backend alike. */
export function assertValidKey(key: string, reserved: string[] = []): void {
  const segments = key.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\') || reserved.includes(s))) {
    throw new Error(`invalid storage key: ${key}`);
  }
}
