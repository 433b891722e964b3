import { QueryTypes, type Transaction } from 'sequelize';
import { connectionOf } from './outbox';

/**
 * Claims a provider event by its id in the caller's transaction; false when it was received before (the
 * provider's retry of an answered delivery, or a replay), in which case the caller applies nothing.
 */
export async function claimProviderEvent(tx: Transaction, event: { environment: 'test' | 'live'; eventId: string; kind: string; occurredAt: Date }): Promise<boolean> {
  const rows = await connectionOf(tx).query(
    `INSERT INTO payment_provider_events (environment, event_id, kind, outcome, occurred_at) VALUES ($1, $2, $3, 'received', $4)
     ON CONFLICT (environment, event_id) DO NOTHING
     RETURNING event_id`,
    { bind: [event.environment, event.eventId, event.kind, event.occurredAt], type: QueryTypes.SELECT, transaction: tx },
  );
  return rows.length > 0;
}

/** What applying a claimed event did, and to which workspace. */
export async function recordProviderEventOutcome(tx: Transaction, event: { environment: 'test' | 'live'; eventId: string }, accountId: string | null, outcome: string): Promise<void> {
  await connectionOf(tx).query(`UPDATE payment_provider_events SET account_id = $3, outcome = $4 WHERE environment = $1 AND event_id = $2`, {
    bind: [event.environment, event.eventId, accountId, outcome],
    transaction: tx,
  });
}
