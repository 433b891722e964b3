import { literal, QueryTypes, type Attributes, type Sequelize, type Transaction } from 'sequelize';
import { selectColumns } from './columns';
import { Product, type ProductType } from './models';
import type { Statement } from './pagination';
import { plainQuery } from './plain-query';
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

export interface ProductReadFilters {
  id?: string;
  slug?: string;
  published?: boolean;
  type?: ProductType;
  afterId?: string;
  /** Only products carrying at least one of these tags (a cross-sell list's candidates). */
  anyTag?: string[];
  /** Archived products too (a merchant's retrieve by id), or only them (the dashboard's archived list); lists leave them out. */
  archived?: boolean | 'only';
}

/**
 * One statement for a page of products (or one product) with each digital product's files aggregated in
 * the same row, so a page of 50 costs one round trip, never 1 + 50. Non-digital rows skip the subquery.
 * Positional parameters, so list pages can run it as a named prepared statement (db/plain-query.ts).
 */
export function productReadStatement(tenant: Tenant, filters: ProductReadFilters, limit: number): Statement {
  const values: unknown[] = [];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const where = [
    `p.account_id = ${bind(tenant.accountId)}`,
    `p.environment = ${bind(tenant.environment)}`,
    ...(filters.archived === 'only' ? ['p.archived'] : filters.archived ? [] : ['NOT p.archived']),
    ...(filters.id !== undefined ? [`p.id = ${bind(filters.id)}`] : []),
    ...(filters.slug !== undefined ? [`p.slug = ${bind(filters.slug)}`] : []),
    ...(filters.published !== undefined ? [`p.published = ${bind(filters.published)}`] : []),
    ...(filters.type !== undefined ? [`p.type = ${bind(filters.type)}`] : []),
    ...(filters.afterId !== undefined ? [`p.id < ${bind(filters.afterId)}`] : []),
    ...(filters.anyTag !== undefined ? [`p.tags ?| ${bind(filters.anyTag)}::text[]`] : []),
  ];
  const text = `SELECT ${productColumns('p')},
      CASE WHEN p.type = 'digital' THEN COALESCE((
        SELECT json_agg(json_build_object('id', f.id, 'accountId', f.account_id, 'productId', f.product_id, 'fileName', f.file_name,
                 'fileSize', f.file_size, 'mimeType', f.mime_type, 'storageKey', f.storage_key, 'createdAt', f.created_at)
               ORDER BY f.id)
          FROM product_files f WHERE f.product_id = p.id), '[]'::json)
      ELSE '[]'::json END AS files
    FROM products p
   WHERE ${where.join(' AND ')}
   ORDER BY p.id DESC
   LIMIT ${bind(limit)}`;
  return { text, values };
}

export type ProductReadRow = ProductAttributes & { files: FileRow[] };

/** Reads one product of the tenant with its files (archived included: the merchant may still look it up). */
export async function readProduct(sequelize: Sequelize, tenant: Tenant, id: string, tx?: Transaction): Promise<ProductReadRow | undefined> {
  const { text, values } = productReadStatement(tenant, { id, archived: true }, 1);
  const [row] = await sequelize.query<ProductReadRow>(text, { bind: values, type: QueryTypes.SELECT, transaction: tx });
  return row;
}

/**
 * Runs a product read built by productReadStatement as a named prepared statement (db/plain-query.ts): the list
 * pages and the public reads, where Sequelize's query pipeline is a measurable share of the request.
 */
export function readProductRows(sequelize: Sequelize, { text, values }: Statement): Promise<ProductReadRow[]> {
  return plainQuery<ProductReadRow>(sequelize, text, values);
}

/**
 * Whether the tenant has this live (non-archived) product, KEY SHARE-locking it until the transaction ends: it can
 * then not be deleted before a row that links it commits, while its archival (which readers handle) is not blocked.
 */
export async function keyShareLiveProduct(sequelize: Sequelize, tenant: Tenant, productId: string, transaction: Transaction): Promise<boolean> {
  const rows = await sequelize.query(
    'SELECT id FROM products WHERE id = :productId AND account_id = :accountId AND environment = :environment AND NOT archived FOR KEY SHARE',
    { replacements: { productId, accountId: tenant.accountId, environment: tenant.environment }, type: QueryTypes.SELECT, transaction },
  );
  return rows.length > 0;
}

/**
 * The attribute of a row linking a product (`alias`.product_id, aliased as Sequelize names the model's table) that
 * reads the product's id while it is live in the row's tenant, null once it is archived or gone.
 */
export function liveProductIdOf(alias: string): ReturnType<typeof literal> {
  return literal(
    `(SELECT p.id FROM products p WHERE p.id = ${alias}.product_id AND p.account_id = ${alias}.account_id
                 AND p.environment = ${alias}.environment AND NOT p.archived)`,
  );
}

/** The slug of the tenant's product while it is on sale (published, not archived); undefined otherwise. */
export async function publishedProductSlug(sequelize: Sequelize, tenant: Tenant, id: string, transaction?: Transaction): Promise<string | undefined> {
  const [row] = await sequelize.query<{ slug: string }>(
    'SELECT slug FROM products WHERE id = :id AND account_id = :accountId AND environment = :environment AND published AND NOT archived',
    { replacements: { id, accountId: tenant.accountId, environment: tenant.environment }, type: QueryTypes.SELECT, transaction },
  );
  return row?.slug;
}

const JSON_ATTRIBUTES = new Set(['coverImages', 'tags', 'metadata']);

/**
 * One INSERT of a product that yields to a taken slug (ON CONFLICT DO NOTHING, so it returns no row) instead
 * of failing, which keeps the caller's transaction usable for the next candidate. `values` are attributes;
 * undefined ones are left to the column defaults.
 */
export function productInsertStatement(values: Record<string, unknown>): Statement {
  const attributes = Product.getAttributes() as Record<string, { field?: string }>;
  const keys = Object.keys(values).filter((k) => values[k] !== undefined);
  // Column names come from the model only; the values are bound.
  const column = (key: string) => {
    const field = attributes[key]?.field;
    if (!field) throw new Error(`not a product attribute: ${key}`);
    return field;
  };
  return {
    text: `INSERT INTO products (${keys.map(column).join(', ')})
       VALUES (${keys.map((_, i) => `$${i + 1}`).join(', ')})
       ON CONFLICT (account_id, environment, slug) DO NOTHING
       RETURNING ${productColumns('')}`,
    values: keys.map((k) => (JSON_ATTRIBUTES.has(k) ? JSON.stringify(values[k]) : values[k])),
  };
}

/** Runs productInsertStatement: the stored row, or undefined when the slug is taken (the transaction stays usable). */
export async function insertProductIfSlugFree(sequelize: Sequelize, tx: Transaction, values: Record<string, unknown>): Promise<ProductAttributes | undefined> {
  const { text, values: bind } = productInsertStatement(values);
  const [row] = await sequelize.query<ProductAttributes>(text, { bind, type: QueryTypes.SELECT, transaction: tx });
  return row;
}
