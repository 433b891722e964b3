import { ulid } from 'ulid';
import { ConfigError, type Config } from '../config';
import type { BlobStorage } from './blob-storage';
import { createLocalDiskStorage } from './local-disk';
import { createS3Storage } from './s3';

export type { BlobStorage } from './blob-storage';

/**
 * The longest an upload may take: the API's whole-request deadline. 500 MB then needs ~140 KB/s. Temporary
 * data older than twice this belongs to no live request.
 */
export const MAX_UPLOAD_DURATION_MS = 60 * 60 * 1000;

export type StorageConfig = Pick<Config, 'FILE_STORAGE_DIR'> & Partial<Pick<Config, 'FILE_STORAGE' | 'S3_BUCKET' | 'S3_REGION' | 'S3_ENDPOINT' | 'S3_FORCE_PATH_STYLE'>>;

/** The one place the backend is chosen (FILE_STORAGE): the API and the worker both build their storage here. */
export function createStorage(config: StorageConfig): BlobStorage {
  if (config.FILE_STORAGE !== 's3') return createLocalDiskStorage(config.FILE_STORAGE_DIR);
  // loadConfig refuses these already; a hand-made configuration gets the same message.
  if (!config.S3_BUCKET || !config.S3_REGION) throw new ConfigError(['S3_BUCKET and S3_REGION: required when FILE_STORAGE=s3']);
  return createS3Storage({ bucket: config.S3_BUCKET, region: config.S3_REGION, endpoint: config.S3_ENDPOINT, forcePathStyle: config.S3_FORCE_PATH_STYLE });
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
