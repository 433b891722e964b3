/** The api-keys area's entry: what routers, activities, the worker and other areas use of it. */
export { KEY_CHANGES_CHANNEL } from './cache';
export type { KeyLookupCache } from './cache';
export { createApiKeyService, issueKey, revokeKeyAsOperator, toApiKeyDto } from './service';
export type { ApiKeyService } from './service';
