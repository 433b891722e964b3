import type { Sequelize } from 'sequelize';
import type { Tenant } from './tenancy';

/** The statements of what buyers' browsers report and of the addresses that asked for no more e-mail; rules in domain/storefront/activity.ts. */

export async function insertStorefrontEvent(
  sequelize: Sequelize,
  tenant: Tenant,
  event: { id: string; event: string; visitorId: string | null; data: Record<string, unknown> },
): Promise<void> {
  await sequelize.query(
    'INSERT INTO storefront_events (id, account_id, environment, event, visitor_id, data) VALUES (:id, :accountId, :environment, :event, :visitorId, :data)',
    { replacements: { id: event.id, accountId: tenant.accountId, environment: tenant.environment, event: event.event, visitorId: event.visitorId, data: JSON.stringify(event.data) } },
  );
}

/** Records the suppression once (a repeat changes nothing); nothing when the workspace does not exist. */
export async function insertEmailSuppression(sequelize: Sequelize, suppression: { accountId: string; email: string; reason: string }): Promise<void> {
  await sequelize.query(
    `INSERT INTO email_suppressions (account_id, email, reason) SELECT id, :email, :reason FROM accounts WHERE id = :accountId
         ON CONFLICT DO NOTHING`,
    { replacements: { accountId: suppression.accountId, email: suppression.email, reason: suppression.reason } },
  );
}

/** Whether the workspace holds this suppression of the address (compared as stored). */
export async function hasEmailSuppression(sequelize: Sequelize, suppression: { accountId: string; email: string; reason: string }): Promise<boolean> {
  const [rows] = await sequelize.query('SELECT 1 FROM email_suppressions WHERE account_id = :accountId AND email = :email AND reason = :reason', {
    replacements: { accountId: suppression.accountId, email: suppression.email, reason: suppression.reason },
  });
  return (rows as unknown[]).length > 0;
}
