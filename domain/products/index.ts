/** The products area's entry: what routers, activities, the worker and other areas use of it. */
export { createAiGenerationService } from './ai-generation';
export { completeAiRun, failAiRun, readPendingAiRun } from './ai-generation-run';
export type { PendingAiRun } from './ai-generation-run';
export { PRODUCT_EVENTS, emitProductUpdated, pageUrl, storefrontOf, toProductDto } from './dto';
export type { ProductDto } from './dto';
export { createProductFileService, removeDeletedFileBlob, type LeadingFields } from './files';
export { CreateProductBody, MAX_FILE_SIZE, METADATA_MAX_KEYS, METADATA_VALUE_MAX, RegisterFileBody, UpdateProductBody } from './inputs';
export { resolvedPriceIssue } from './price';
export { createProductService } from './service';
export { slugify, withTimestampSuffix } from './slug';
