import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { WebhookDeliveryAttempt } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { invalidState, notFound } from '../../lib/errors';
import { retryWebhookDeliveryNow, workflowIds, type AttemptOutcome } from '../../workflows/messages';
import type { WebhookDeliveryState } from './states';

/** What a retry-now did: the attempt made (or the one in flight), its outcome, and where the delivery is after it. */
export interface DeliveryRetried {
  accountId: string;
  endpointId: string;
  eventId: string;
  attempt: number;
  outcome: AttemptOutcome;
  status: Exclude<WebhookDeliveryState, 'delivering'>;
}

const WORKFLOW_ID = /^webhook-delivery:(evt_[0-9A-Za-z_]+):(whe_[0-9A-Za-z]+)$/;

/** The (event, endpoint) of a `webhook-delivery:evt_…:whe_…` workflow id (also taken without its prefix); null for anything else. */
export function parseDeliveryWorkflowId(id: string): { eventId: string; endpointId: string } | null {
  const match = WORKFLOW_ID.exec(id.startsWith('webhook-delivery:') ? id : `webhook-delivery:${id}`);
  return match ? { eventId: match[1] as string, endpointId: match[2] as string } : null;
}

/**
 * Asks a waiting delivery to make its next attempt now (the `retryWebhookDeliveryNow` update) and waits for that
 * attempt's outcome. A delivery that is over (delivered, dropped, stopped) has no attempt left: `409 INVALID_STATE`.
 * The delivery log the attempt writes (domain/webhooks/deliveries.ts) tells where it stands after it.
 */
export async function retryDeliveryNow(temporal: Client, tenant: Tenant, delivery: { endpointId: string; eventId: string }): Promise<DeliveryRetried> {
  const workflowId = workflowIds.webhookDelivery(delivery.eventId, delivery.endpointId);
  let made: { attempt: number; outcome: AttemptOutcome };
  try {
    made = await temporal.workflow.getHandle(workflowId).executeUpdate(retryWebhookDeliveryNow);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError || err instanceof WorkflowUpdateFailedError) {
      throw invalidState('The delivery is over (delivered, dropped after its last attempt, or stopped): there is no attempt left to retry');
    }
    throw err;
  }
  return { accountId: tenant.accountId, ...delivery, ...made, status: await statusAfter(tenant, delivery, made.outcome) };
}

async function statusAfter(tenant: Tenant, delivery: { endpointId: string; eventId: string }, outcome: AttemptOutcome): Promise<DeliveryRetried['status']> {
  if (outcome === 'succeeded') return 'delivered';
  if (outcome !== 'failed') return 'stopped';
  const newest = await WebhookDeliveryAttempt.findOne({ where: { ...tenantWhere(tenant), ...delivery }, order: [['id', 'DESC']], attributes: ['status'] });
  return newest?.status === 'retry_scheduled' ? 'retrying' : 'failed';
}

/** The tenant a delivery's log belongs to, for an operator who holds only its workflow id; 404 when it has no row. */
export async function deliveryTenant(delivery: { endpointId: string; eventId: string }): Promise<Tenant> {
  const row = await WebhookDeliveryAttempt.findOne({ where: delivery, attributes: ['accountId', 'environment'] });
  if (!row) throw notFound('Webhook delivery');
  return tenantWhere(row);
}
