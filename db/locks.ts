import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { connectionOf } from './outbox';

/**
 * Serialises quota checks of one workspace: every check-then-insert against a plan cap holds this lock.
 * FOR NO KEY UPDATE, not FOR UPDATE: it conflicts with the other quota lockers but not with the KEY SHARE
 * locks that foreign-key checks take, so unrelated inserts (events, idempotency records) never wait on it.
 * Lock order: an existing row of the resource first (a product being changed), then this one, never the reverse.
 */
export async function lockAccount(tx: Transaction, accountId: string): Promise<void> {
  await connectionOf(tx).query('SELECT id FROM accounts WHERE id = :accountId FOR NO KEY UPDATE', {
    replacements: { accountId },
    type: QueryTypes.SELECT,
    transaction: tx,
  });
}

/** Serialises the reconciliations of one workspace's system webhook endpoints (domain/webhooks/endpoints.ts), until the transaction ends. */
export async function lockSystemWebhookEndpoints(sequelize: Sequelize, tx: Transaction, accountId: string): Promise<void> {
  await sequelize.query('SELECT pg_advisory_xact_lock(hashtext(:key))', { replacements: { key: `webhook-system:${accountId}` }, transaction: tx });
}
