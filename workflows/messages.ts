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
};
