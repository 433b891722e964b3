/** The products area's entry: what routers, activities, the worker and other areas use of it. */
export { createAiGenerationService } from './ai-generation';
export { PRODUCT_EVENTS, emitProductUpdated, pageUrl, storefrontOf, toProductDto } from './dto';
export type { ProductDto } from './dto';
export { createProductFileService } from './files';
export { CreateProductBody, MAX_FILE_SIZE, METADATA_MAX_KEYS, METADATA_VALUE_MAX, RegisterFileBody, UpdateProductBody } from './inputs';
export { resolvedPriceIssue } from './price';
export { createProductService } from './service';
export { slugify, withTimestampSuffix } from './slug';
