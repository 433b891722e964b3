import { QueryTypes, type Attributes, type Sequelize, type Transaction } from 'sequelize';
import { selectColumns } from './columns';
import { Product } from './models';
import type { Tenant } from './tenancy';

/**
 * Product reads in one statement (a product with its files), shared by the API's services and the worker's
 * activities. The product shape they are turned into lives in domain/products/dto.ts.
 */

/** A product row from the model or from the raw read (where bigint `price` arrives as a string). */
export type ProductAttributes = Omit<Attributes<Product>, 'price'> & { price: number | string };

/** A file as the product read returns it: from the model (Dates) or aggregated as JSON (ISO strings). */
export interface FileRow {
  id: string;
  accountId: string;
  productId: string;
  fileName: string;
  fileSize: number | string;
  mimeType: string | null;
  storageKey: string;
  createdAt: Date | string;
}

/** Every product column as its camelCase attribute (see selectColumns). */
export const productColumns = (alias: string): string => selectColumns(Product, alias);

/**
 * One statement for a page of products (or one product) with each digital product's files aggregated in
 * the same row, so a page of 50 costs one round trip, never 1 + 50. Non-digital rows skip the subquery.
 */
export function productReadSql(filters: { id?: boolean; slug?: boolean; published?: boolean; type?: boolean; afterId?: boolean; archived?: boolean }): string {
  const where = [
    'p.account_id = :accountId',
    'p.environment = :environment',
    ...(filters.archived ? [] : ['NOT p.archived']),
    ...(filters.id ? ['p.id = :id'] : []),
    ...(filters.slug ? ['p.slug = :slug'] : []),
    ...(filters.published ? ['p.published = :published'] : []),
    ...(filters.type ? ['p.type = :type'] : []),
    ...(filters.afterId ? ['p.id < :afterId'] : []),
  ];
  return `SELECT ${productColumns('p')},
      CASE WHEN p.type = 'digital' THEN COALESCE((
        SELECT json_agg(json_build_object('id', f.id, 'accountId', f.account_id, 'productId', f.product_id, 'fileName', f.file_name,
                 'fileSize', f.file_size, 'mimeType', f.mime_type, 'storageKey', f.storage_key, 'createdAt', f.created_at)
               ORDER BY f.id)
          FROM product_files f WHERE f.product_id = p.id), '[]'::json)
      ELSE '[]'::json END AS files
    FROM products p
   WHERE ${where.join(' AND ')}
   ORDER BY p.id DESC
   LIMIT :limit`;
}

export type ProductReadRow = ProductAttributes & { files: FileRow[] };

/** Reads one product of the tenant with its files (archived included: the merchant may still look it up). */
export async function readProduct(sequelize: Sequelize, tenant: Tenant, id: string, tx?: Transaction): Promise<ProductReadRow | undefined> {
  const [row] = await sequelize.query<ProductReadRow>(productReadSql({ id: true, archived: true }), {
    replacements: { ...tenant, id, limit: 1 },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return row;
}
