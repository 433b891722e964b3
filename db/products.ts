import { QueryTypes, type Attributes, type Sequelize, type Transaction } from 'sequelize';
import { selectColumns } from './columns';
import { Product } from './models';
import { emit, type Tenant } from './outbox';

/**
 * Products as the API returns them and as their events carry them: one shape, read in one statement, shared
 * by the API's services and the worker's activities.
 */

export const PRODUCT_EVENTS = {
  created: 'service.product.created.v1',
  updated: 'service.product.updated.v1',
  archived: 'service.product.archived.v1',
} as const;

/**
 * Product metadata limits: at most this many keys, each value at most this many characters. Shared by the API
 * schema and AI generation, so what generation stores survives a PATCH round trip unchanged.
 */
export const METADATA_MAX_KEYS = 50;
export const METADATA_VALUE_MAX = 500;

/**
 * Who reads a product: the merchant (secret key, and the payload of webhook events) or a buyer-facing caller
 * (publishable key). Buyers never see a file's storageKey.
 */
export type Audience = 'merchant' | 'buyer';

/** What a product DTO needs besides the row: the workspace slug and PUBLIC_BASE_URL, for pageUrl. */
export interface Storefront {
  workspaceSlug: string | null;
  baseUrl: string;
}

/** A product row from the model or from the raw read (where bigint `price` arrives as a string). */
export type ProductAttributes = Omit<Attributes<Product>, 'price'> & { price: number | string };

/** A file as the product read returns it: from the model (Dates) or aggregated as JSON (ISO strings). */
export interface FileRow {
  id: string;
  productId: string;
  fileName: string;
  fileSize: number | string;
  mimeType: string | null;
  storageKey: string;
  createdAt: Date | string;
}

const iso = (value: Date | string) => new Date(value).toISOString();

export function toFileDto(file: FileRow, audience: Audience = 'merchant') {
  return {
    id: file.id,
    productId: file.productId,
    fileName: file.fileName,
    fileSize: Number(file.fileSize),
    mimeType: file.mimeType,
    ...(audience === 'merchant' ? { storageKey: file.storageKey } : {}),
    createdAt: iso(file.createdAt),
  };
}

export function pageUrl(storefront: Storefront, productSlug: string): string | null {
  return storefront.workspaceSlug ? `${storefront.baseUrl}/${storefront.workspaceSlug}/${productSlug}` : null;
}

/** The one product shape of create, list, retrieve, update and the created/updated event payloads. */
export function toProductDto(product: ProductAttributes, files: FileRow[], storefront: Storefront, audience: Audience = 'merchant') {
  return {
    id: product.id,
    name: product.name,
    slug: product.slug,
    description: product.description,
    price: Number(product.price),
    currency: product.currency,
    type: product.type,
    thumbnail: product.thumbnail,
    coverImages: product.coverImages,
    tags: product.tags,
    aiGenerated: product.aiGenerated,
    aiStatus: product.aiStatus,
    licenseEnabled: product.licenseEnabled,
    maxActivations: product.maxActivations,
    weight: product.weight,
    length: product.length,
    width: product.width,
    height: product.height,
    originAreaId: product.originAreaId,
    requiresInsurance: product.requiresInsurance,
    gtin: product.gtin,
    googleProductCategory: product.googleProductCategory,
    brand: product.brand,
    feedExcluded: product.feedExcluded,
    madeToOrder: product.madeToOrder,
    preorderShipsFrom: product.preorderShipsFrom ? iso(product.preorderShipsFrom) : null,
    leadTimeText: product.leadTimeText,
    batchHint: product.batchHint,
    published: product.published,
    archived: product.archived,
    hasVariants: product.hasVariants,
    pageUrl: pageUrl(storefront, product.slug),
    // Files attach to any type but are delivered, and so shown, only for digital products.
    files: product.type === 'digital' ? files.map((f) => toFileDto(f, audience)) : [],
    metadata: product.metadata,
    createdAt: iso(product.createdAt),
    updatedAt: iso(product.updatedAt),
  };
}

export type ProductDto = ReturnType<typeof toProductDto>;

/** Every product column as its camelCase attribute (see selectColumns). */
export const productColumns = (alias: string): string => selectColumns(Product, alias);

/**
 * One statement for a page of products (or one product) with each digital product's files aggregated in
 * the same row, so a page of 50 costs one round trip, never 1 + 50. Non-digital rows skip the subquery.
 */
export function productReadSql(filters: { id?: boolean; published?: boolean; type?: boolean; afterId?: boolean; archived?: boolean }): string {
  const where = [
    'p.account_id = :accountId',
    'p.environment = :environment',
    ...(filters.archived ? [] : ['NOT p.archived']),
    ...(filters.id ? ['p.id = :id'] : []),
    ...(filters.published ? ['p.published = :published'] : []),
    ...(filters.type ? ['p.type = :type'] : []),
    ...(filters.afterId ? ['p.id < :afterId'] : []),
  ];
  return `SELECT ${productColumns('p')},
      CASE WHEN p.type = 'digital' THEN COALESCE((
        SELECT json_agg(json_build_object('id', f.id, 'productId', f.product_id, 'fileName', f.file_name,
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

/**
 * Serialises quota checks of one workspace: every check-then-insert against a plan cap holds this lock.
 * FOR NO KEY UPDATE, not FOR UPDATE: it conflicts with the other quota lockers but not with the KEY SHARE
 * locks that foreign-key checks take, so unrelated inserts (events, idempotency records) never wait on it.
 * Lock order: an existing product's row first, then this one (as ai-generate's reserve does), never the reverse.
 */
export async function lockAccount(sequelize: Sequelize, tx: Transaction, accountId: string): Promise<void> {
  await sequelize.query('SELECT id FROM accounts WHERE id = :accountId FOR NO KEY UPDATE', {
    replacements: { accountId },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
}

/** Reads one product of the tenant with its files (archived included: the merchant may still look it up). */
export async function readProduct(sequelize: Sequelize, tenant: Tenant, id: string, tx?: Transaction): Promise<ProductReadRow | undefined> {
  const [row] = await sequelize.query<ProductReadRow>(productReadSql({ id: true, archived: true }), {
    replacements: { ...tenant, id, limit: 1 },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
  return row;
}

/** Emits service.product.updated.v1 with the product as it now stands; for every change to a product or its files. */
export async function emitProductUpdated(sequelize: Sequelize, tx: Transaction, tenant: Tenant, storefront: Storefront, id: string): Promise<ProductDto> {
  const row = await readProduct(sequelize, tenant, id, tx);
  // Callers hold the product (locked or just written) in this transaction, so a miss is a bug, not a 404.
  if (!row) throw new Error(`product ${id} not found in its own transaction`);
  const dto = toProductDto(row, row.files, storefront);
  await emit(tx, tenant, PRODUCT_EVENTS.updated, dto);
  return dto;
}
