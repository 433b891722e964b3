import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Tenant } from './tenancy';

/** Reads of product files for the storage quota and the blob cleanup; the rules live in domain/products/files.ts. */

/** Bytes of files the tenant stores, summed over every product. */
export async function storageUsed(sequelize: Sequelize, tx: Transaction, tenant: Tenant): Promise<number> {
  const [row] = await sequelize.query<{ used: string }>(
    'SELECT COALESCE(SUM(file_size), 0) AS used FROM product_files WHERE account_id = :accountId AND environment = :environment',
    { replacements: { ...tenant }, type: QueryTypes.SELECT, transaction: tx },
  );
  return Number(row?.used ?? 0);
}

/** storageUsed, read only when the tenant has the live (non-archived) product: undefined when it has not. One round trip. */
export async function storageUsedForLiveProduct(sequelize: Sequelize, tenant: Tenant, productId: string): Promise<number | undefined> {
  const [product] = await sequelize.query<{ used: string }>(
    `SELECT (SELECT COALESCE(SUM(file_size), 0) FROM product_files WHERE account_id = :accountId AND environment = :environment) AS used
           FROM products WHERE id = :id AND account_id = :accountId AND environment = :environment AND NOT archived`,
    { replacements: { ...tenant, id: productId }, type: QueryTypes.SELECT },
  );
  return product ? Number(product.used) : undefined;
}

/** Whether a file row still has this id or points at this blob. */
export async function fileRowReferences(sequelize: Sequelize, { fileId, storageKey }: { fileId: string; storageKey: string }): Promise<boolean> {
  const rows = await sequelize.query('SELECT 1 FROM product_files WHERE id = :fileId OR storage_key = :storageKey LIMIT 1', {
    replacements: { fileId, storageKey },
    type: QueryTypes.SELECT,
  });
  return rows.length > 0;
}
