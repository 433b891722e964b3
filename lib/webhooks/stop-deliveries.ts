import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Logger } from '../logger';

/**
 * Cancels the running `webhook-delivery:<evt>:<whe>` workflows of one endpoint, so an operator no longer sees
 * retries of a deleted or disabled endpoint as running for up to a day. Best effort by design: each such
 * workflow already stops without sending at its next attempt (the endpoint is gone or its epoch moved), and
 * visibility can lag a just-started one. Returns how many were canceled.
 */
export async function cancelEndpointDeliveries(client: Client, endpoint: { accountId: string; endpointId: string }, logger: Logger): Promise<number> {
  // Ids come from our own database; the check keeps the visibility query well-formed whatever they hold.
  if (!/^[A-Za-z0-9_]+$/.test(endpoint.accountId)) throw new Error(`unexpected account id ${endpoint.accountId}`);
  const suffix = `:${endpoint.endpointId}`;
  const query = `WorkflowType = 'webhookDelivery' AND ExecutionStatus = 'Running' AND AccountId = '${endpoint.accountId}'`;
  let canceled = 0;
  for await (const run of client.workflow.list({ query })) {
    if (!run.workflowId.endsWith(suffix)) continue;
    try {
      await client.workflow.getHandle(run.workflowId, run.runId).cancel();
      canceled += 1;
    } catch (err) {
      // Finished meanwhile: nothing left to stop.
      if (!(err instanceof WorkflowNotFoundError)) logger.warn({ err, workflowId: run.workflowId }, 'could not cancel a webhook delivery');
    }
  }
  return canceled;
}
