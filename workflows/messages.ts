import { defineSearchAttributeKey } from '@temporalio/common';

/** Shared by the API, the worker and the workflows: task queue, search attributes, workflow and schedule ids. */
export const DEFAULT_TASK_QUEUE = 'commerce';

/** Lets an operator find every workflow of one workspace in the Temporal UI: `AccountId = "acc_…"`. */
export const ACCOUNT_ID = defineSearchAttributeKey('AccountId', 'KEYWORD');

export const SCHEDULE_IDS = {
  maintenancePurge: 'maintenance-purge',
} as const;

export const workflowIds = {
  maintenancePurge: () => 'maintenance-purge',
  aiGeneration: (productId: string) => `ai-generation:${productId}`,
  fileCleanup: (fileId: string) => `file-cleanup:${fileId}`,
  /** One delivery per (event, endpoint): a second start with the same id is refused, so fan-out can repeat safely. */
  webhookDelivery: (eventId: string, endpointId: string) => `webhook-delivery:${eventId}:${endpointId}`,
};

/** Signal name of the ai-generation workflow: "look at the product again" (sent by signal-with-start). */
export const AI_GENERATION_REQUESTED = 'aiGenerationRequested';
