import { QueryTypes, type Transaction } from 'sequelize';
import { connectionOf } from './outbox';

/**
 * Claims a fulfillment step of a manual order in the caller's transaction: true when this transaction inserted
 * its row (and so applies the step), false when an earlier one did. A concurrent claim waits on the primary
 * key until the first commits, then finds the row.
 */
export async function claimManualOrderStep(tx: Transaction, orderId: string, step: string): Promise<boolean> {
  const rows = await connectionOf(tx).query(
    `INSERT INTO manual_order_fulfillment_steps (manual_order_id, step) VALUES (:orderId, :step)
     ON CONFLICT (manual_order_id, step) DO NOTHING RETURNING step`,
    { type: QueryTypes.SELECT, replacements: { orderId, step }, transaction: tx },
  );
  return rows.length > 0;
}

/** What the claimed step wrote (ids, for an operator), on its row. */
export async function recordManualOrderStepResult(tx: Transaction, orderId: string, step: string, result: Record<string, unknown>): Promise<void> {
  await connectionOf(tx).query('UPDATE manual_order_fulfillment_steps SET result = CAST(:result AS jsonb) WHERE manual_order_id = :orderId AND step = :step', {
    replacements: { orderId, step, result: JSON.stringify(result) },
    transaction: tx,
  });
}
