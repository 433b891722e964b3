import { QueryTypes, type Transaction } from 'sequelize';
import { connectionOf } from './outbox';

/**
 * The `checkout_fulfillment_steps` ledger: one row per fulfillment effect of a session, written in the effect's
 * own transaction, so an effect and the record that it happened commit or vanish together.
 */

/**
 * Claims `step` of the session for the caller's transaction; false when an earlier try committed it. A concurrent
 * try of the same step waits on the primary key until this transaction ends, then finds the row (or claims it,
 * had this one rolled back).
 */
export async function claimFulfillmentStep(tx: Transaction, checkoutSessionId: string, step: string): Promise<boolean> {
  const claimed = await connectionOf(tx).query(
    `INSERT INTO checkout_fulfillment_steps (checkout_session_id, step) VALUES ($1, $2)
     ON CONFLICT (checkout_session_id, step) DO NOTHING
     RETURNING step`,
    { bind: [checkoutSessionId, step], type: QueryTypes.SELECT, transaction: tx },
  );
  return claimed.length > 0;
}

/** What the claimed step did (ids it wrote, the discount's verdict), for an operator reading the row. */
export async function recordFulfillmentStepResult(tx: Transaction, checkoutSessionId: string, step: string, result: Record<string, unknown>): Promise<void> {
  await connectionOf(tx).query(`UPDATE checkout_fulfillment_steps SET result = $3 WHERE checkout_session_id = $1 AND step = $2`, {
    bind: [checkoutSessionId, step, JSON.stringify(result)],
    type: QueryTypes.UPDATE,
    transaction: tx,
  });
}
