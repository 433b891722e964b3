import { QueryTypes, type Sequelize } from 'sequelize';
import type { BlobStorage } from '../lib/storage';
import type { FileActivities } from './contracts/files';

export function createFileActivities({ sequelize, storage }: { sequelize: Sequelize; storage: BlobStorage }): FileActivities {
  return {
    /**
     * Removes a deleted file's blob. Keeps it while a row still points at it (the deleting transaction did not
     * commit). Idempotent: a blob already gone is success.
     */
    async removeDeletedFileBlob({ fileId, storageKey }: { fileId: string; storageKey: string }): Promise<'removed' | 'kept'> {
      const rows = await sequelize.query('SELECT 1 FROM product_files WHERE id = :fileId OR storage_key = :storageKey LIMIT 1', {
        replacements: { fileId, storageKey },
        type: QueryTypes.SELECT,
      });
      if (rows.length > 0) return 'kept';
      await storage.remove(storageKey);
      return 'removed';
    },
  };
}
