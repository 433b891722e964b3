import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import type { aiGeneration, fileCleanup, webhookDelivery } from '../workflows';
import {
  ACCOUNT_ID,
  aiGenerationRequested,
  workflowIds,
  type AiGenerationTarget,
  type FileCleanupInput,
  type WebhookDeliveryInput,
} from '../workflows/messages';

export interface StarterOptions {
  taskQueue: string;
  /**
   * Tag workflows with the `AccountId` search attribute (so an operator finds a workspace's workflows in the
   * UI). Off only against the time-skipping test server, which has no custom search attributes.
   */
  searchAttributes?: boolean;
}

/**
 * The one module that starts and signals workflows. Every start goes through `start`, which attaches the
 * task queue and `AccountId` and treats "already started" (a repeated start of a meaningful, stable id) as
 * the no-op it is.
 */
export function createStarters(client: Client, { taskQueue, searchAttributes = true }: StarterOptions) {
  const tagged = (accountId: string) => (searchAttributes ? { typedSearchAttributes: [{ key: ACCOUNT_ID, value: accountId }] } : {});

  /** Starts `workflowId`; false when a workflow with that id already exists (running, or closed and not reusable). */
  async function start<W extends Workflow>(
    type: string,
    accountId: string,
    options: Omit<WorkflowStartOptions<W>, 'taskQueue' | 'typedSearchAttributes'>,
  ): Promise<boolean> {
    try {
      await client.workflow.start<W>(type, { ...options, taskQueue, ...tagged(accountId) } as WorkflowStartOptions<W>);
      return true;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
      throw err;
    }
  }

  return {
    /**
     * Signal-with-start of `ai-generation:<productId>`: an open workflow for the product (e.g. one that has just
     * written `completed` and is about to close) is told to look at the product again instead of the reservation
     * being dropped; a closed or missing one is started anew under the same id.
     */
    async aiGeneration(target: AiGenerationTarget): Promise<void> {
      await client.workflow.signalWithStart<typeof aiGeneration, []>('aiGeneration', {
        workflowId: workflowIds.aiGeneration(target.productId),
        taskQueue,
        args: [target],
        signal: aiGenerationRequested,
        signalArgs: [],
        ...tagged(target.accountId),
      });
    },

    /** `file-cleanup:<fileId>`: a repeat (a retried request) finds the first one waiting. */
    fileCleanup(accountId: string, input: FileCleanupInput): Promise<boolean> {
      return start<typeof fileCleanup>('fileCleanup', accountId, { workflowId: workflowIds.fileCleanup(input.fileId), args: [input] });
    },

    /**
     * `webhook-delivery:<evt>:<whe>`. The id may never be reused (even after the run closed), so a second start
     * for the same pair, from a relay that crashed before marking its batch or from a concurrent relay, is a no-op.
     */
    webhookDelivery(input: WebhookDeliveryInput): Promise<boolean> {
      return start<typeof webhookDelivery>('webhookDelivery', input.accountId, {
        workflowId: workflowIds.webhookDelivery(input.eventId, input.endpointId),
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    },
  };
}

export type Starters = ReturnType<typeof createStarters>;
