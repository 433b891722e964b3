import type { Transaction } from 'sequelize';
import { connectionOf, emit } from '../../db/outbox';
import { readProduct, type FileRow, type ProductAttributes } from '../../db/products';
import type { Tenant } from '../../db/tenancy';
import type { Config } from '../../lib/config';
import type { AuthContext } from '../auth-context';

/** The one product shape of create, list, retrieve, update and the product event payloads. */

export const PRODUCT_EVENTS = {
  created: 'service.product.created.v1',
  updated: 'service.product.updated.v1',
  archived: 'service.product.archived.v1',
} as const;

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

const iso = (value: Date | string) => new Date(value).toISOString();

export function toFileDto(file: FileRow, audience: Audience = 'merchant') {
  return {
    id: file.id,
    accountId: file.accountId,
    productId: file.productId,
    fileName: file.fileName,
    fileSize: Number(file.fileSize),
    mimeType: file.mimeType,
    ...(audience === 'merchant' ? { storageKey: file.storageKey } : {}),
    createdAt: iso(file.createdAt),
  };
}

/** The storefront of the caller's workspace, for pageUrl. */
export function storefrontOf(auth: AuthContext, config: Pick<Config, 'PUBLIC_BASE_URL'>): Storefront {
  return { workspaceSlug: auth.account.slug, baseUrl: config.PUBLIC_BASE_URL };
}

export function pageUrl(storefront: Storefront, productSlug: string): string | null {
  return storefront.workspaceSlug ? `${storefront.baseUrl}/${storefront.workspaceSlug}/${productSlug}` : null;
}

/** The one product shape of create, list, retrieve, update and the created/updated event payloads. */
export function toProductDto(product: ProductAttributes, files: FileRow[], storefront: Storefront, audience: Audience = 'merchant') {
  return {
    id: product.id,
    accountId: product.accountId,
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

/** Emits service.product.updated.v1 with the product as it now stands; for every change to a product or its files. */
export async function emitProductUpdated(tx: Transaction, tenant: Tenant, storefront: Storefront, id: string): Promise<ProductDto> {
  const row = await readProduct(connectionOf(tx), tenant, id, tx);
  // Callers hold the product (locked or just written) in this transaction, so a miss is a bug, not a 404.
  if (!row) throw new Error(`product ${id} not found in its own transaction`);
  const dto = toProductDto(row, row.files, storefront);
  await emit(tx, tenant, PRODUCT_EVENTS.updated, dto);
  return dto;
}
