/** The api-keys area's entry: what routers, activities, the worker and other areas use of it. */
export { KEY_CHANGES_CHANNEL } from './cache';
export type { KeyLookupCache } from './cache';
export { ACTIVE_KEY_SQL, createApiKeyService, issueKey, toApiKeyDto } from './service';
export type { ActiveKeyRow, ApiKeyService } from './service';
