import { z } from 'zod';
import { CURRENCIES, PRODUCT_TYPES } from '../../db/models/product';
import { Timestamp } from '../openapi';

/** The product shape of the merchant routes, the public storefront and the product events (one DTO, one schema). */
export const ProductFile = z
  .object({
    id: z.string().meta({ example: 'file_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    productId: z.string(),
    fileName: z.string(),
    fileSize: z.int(),
    mimeType: z.string().nullable(),
    storageKey: z.string().optional().meta({ description: 'Object-store path; secret-key responses only, never to publishable keys' }),
    createdAt: Timestamp,
  })
  .meta({ id: 'ProductFile' });

export const Product = z
  .object({
    id: z.string().meta({ example: 'prod_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string().meta({ description: "The caller's workspace, publishable-key reads included" }),
    name: z.string(),
    slug: z.string(),
    description: z.string().nullable(),
    price: z.int(),
    currency: z.enum(CURRENCIES),
    type: z.enum(PRODUCT_TYPES),
    thumbnail: z.string().nullable(),
    coverImages: z.array(z.string()),
    tags: z.array(z.string()),
    aiGenerated: z.boolean(),
    aiStatus: z.enum(['generating', 'completed', 'failed']).nullable(),
    licenseEnabled: z.boolean(),
    maxActivations: z.int(),
    weight: z.int().nullable(),
    length: z.int().nullable(),
    width: z.int().nullable(),
    height: z.int().nullable(),
    originAreaId: z.string().nullable(),
    requiresInsurance: z.boolean(),
    gtin: z.string().nullable(),
    googleProductCategory: z.string().nullable(),
    brand: z.string().nullable(),
    feedExcluded: z.boolean(),
    madeToOrder: z.boolean(),
    preorderShipsFrom: Timestamp.nullable(),
    leadTimeText: z.string().nullable(),
    batchHint: z.string().nullable(),
    published: z.boolean(),
    archived: z.boolean(),
    hasVariants: z.boolean(),
    pageUrl: z.string().nullable().meta({ description: 'PUBLIC_BASE_URL/<workspace slug>/<product slug>; null when the workspace has no slug' }),
    files: z.array(ProductFile).meta({ description: 'Digital products only; empty for other types' }),
    metadata: z.record(z.string(), z.string()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Product' });
