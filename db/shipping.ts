import { QueryTypes, type Transaction } from 'sequelize';
import type { ShipmentEventSource } from './models/shipment-event';
import { connectionOf } from './outbox';
import type { Tenant } from './tenancy';

/**
 * Records a partner event by its id in the caller's transaction; false when it was recorded before (a repeated
 * delivery, or a retried step), in which case the caller applies nothing.
 */
export async function recordShipmentEvent(
  tx: Transaction,
  tenant: Tenant,
  event: { id: string; shipmentId: string; source: ShipmentEventSource; type: string; partnerStatus: string | null; status: string | null; outcome: 'applied' | 'ignored' },
): Promise<boolean> {
  const rows = await connectionOf(tx).query(
    `INSERT INTO shipment_events (id, account_id, environment, shipment_id, source, type, partner_status, status, outcome)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (id) DO NOTHING
     RETURNING id`,
    {
      bind: [event.id, tenant.accountId, tenant.environment, event.shipmentId, event.source, event.type, event.partnerStatus, event.status, event.outcome],
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  return rows.length > 0;
}

/**
 * Records one signed webhook delivery by its signature; false when that very delivery was accepted before (a
 * replay). A repeated event re-sent by the partner carries a new timestamp, hence a new signature.
 */
export async function recordWebhookReceipt(tx: Transaction, receipt: { signature: string; eventId: string; signedAt: Date }): Promise<boolean> {
  const rows = await connectionOf(tx).query(
    `INSERT INTO shipping_webhook_receipts (signature, event_id, signed_at) VALUES ($1, $2, $3)
     ON CONFLICT (signature) DO NOTHING
     RETURNING signature`,
    { bind: [receipt.signature, receipt.eventId, receipt.signedAt], type: QueryTypes.SELECT, transaction: tx },
  );
  return rows.length > 0;
}
