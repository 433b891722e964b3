/**
 * The product workflows' lives as their `LifecycleState` names them, importing nothing that runs (the workflow
 * bundle reads it).
 *
 * AI generation (`ai-generation:prod_…`): `generating` while a reserved run is served (the provider call and its
 * retries), then the last run's `completed` or `failed`; `idle` when a look found nothing reserved.
 */
export const AI_GENERATION_STATES = ['generating', 'completed', 'failed', 'idle'] as const;

export type AiGenerationState = (typeof AI_GENERATION_STATES)[number];

/** File cleanup (`file-cleanup:file_…`): `waiting` out the delay, then `removed` (the blob) or `kept` (the row exists). */
export const FILE_CLEANUP_STATES = ['waiting', 'removed', 'kept'] as const;

export type FileCleanupState = (typeof FILE_CLEANUP_STATES)[number];
