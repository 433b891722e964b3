import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { ACCOUNT_ID, workflowIds } from '../../workflows/messages';
import type { webhookDelivery, WebhookDeliveryInput } from '../../workflows/webhook-delivery';

export interface EnvelopeEvent {
  id: string;
  type: string;
  createdAt: Date | string;
  accountId: string;
  data: Record<string, unknown>;
}

/** The delivery body of document 2, serialised once so every attempt of every endpoint sends the same bytes. */
export function serialiseEnvelope(event: EnvelopeEvent): string {
  const createdAt = event.createdAt instanceof Date ? event.createdAt.toISOString() : event.createdAt;
  return JSON.stringify({ id: event.id, type: event.type, createdAt, accountId: event.accountId, data: event.data });
}

export interface StartDeliveryOptions {
  taskQueue: string;
  /** Off only on the time-skipping test server, which has no custom search attributes. */
  searchAttributes?: boolean;
}

/**
 * Starts `webhook-delivery:<evt>:<whe>`. The id may never be reused (even after the run closed), so a second
 * start for the same pair, from a relay that crashed before marking its batch or from a concurrent relay,
 * is a no-op. Returns false in that case.
 */
export async function startWebhookDelivery(client: Client, input: WebhookDeliveryInput, options: StartDeliveryOptions): Promise<boolean> {
  try {
    await client.workflow.start<typeof webhookDelivery>('webhookDelivery', {
      taskQueue: options.taskQueue,
      workflowId: workflowIds.webhookDelivery(input.eventId, input.endpointId),
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      ...(options.searchAttributes === false ? {} : { typedSearchAttributes: [{ key: ACCOUNT_ID, value: input.accountId }] }),
    });
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}
