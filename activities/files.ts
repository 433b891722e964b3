import type { Sequelize } from 'sequelize';
import { removeDeletedFileBlob } from '../domain/products';
import type { BlobStorage } from '../lib/storage';
import type { FileActivities } from './contracts/files';

export function createFileActivities({ sequelize, storage }: { sequelize: Sequelize; storage: BlobStorage }): FileActivities {
  return {
    /** Idempotent: the file-cleanup workflow's one step (domain/products/files.ts). */
    async removeDeletedFileBlob(input: { fileId: string; storageKey: string }): Promise<'removed' | 'kept'> {
      return removeDeletedFileBlob({ sequelize, storage }, input);
    },
  };
}
