import { z } from 'zod';
import { PRODUCT_TYPES } from '../../../db/models/product';
import { MAX_FILE_SIZE } from '../../../domain/products';
import { binaryPart, pathId } from '../../openapi';
import { pageQuery } from '../../pagination';

export { CreateProductBody, RegisterFileBody, UpdateProductBody } from '../../../domain/products';
export { Product, ProductFile } from '../../schemas/products';

export const ListProductsQuery = pageQuery().extend({
  published: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
  type: z.enum(PRODUCT_TYPES).optional(),
});
export type ListProductsQuery = z.infer<typeof ListProductsQuery>;

export const ProductIdParams = z.object({ id: pathId });
export const ProductFileParams = z.object({ id: pathId, fileId: pathId });

/** The multipart form of an upload, for the OpenAPI document (the handler streams the part itself). */
export const UploadFileForm = z
  .object({ file: binaryPart(`One file part named "file", at most ${MAX_FILE_SIZE} bytes`) })
  .meta({ id: 'UploadProductFileForm' });

export const AiGenerateAccepted = z
  .object({ message: z.string() })
  .meta({ id: 'AiGenerateAccepted' });
