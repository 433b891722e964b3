import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { newId } from '../lib/ids';
import { connectionOf } from './outbox';
import type { Tenant } from './tenancy';

/**
 * The e-mail sent-log (`email_messages`): recording a message once per business key, and the state changes of
 * its delivery. What is sent, and when, is decided above this layer (domain/email, activities/email.ts).
 */
export interface NewEmailMessage {
  kind: string;
  businessKey: string;
  messageId: string;
  toAddress: string;
  subject: string;
  /** Sealed rendered parts. */
  body: string;
}

/** Inserts the row in the caller's transaction; null when the business key is already recorded (nothing written). */
export async function insertEmailMessage(tx: Transaction, tenant: Tenant, message: NewEmailMessage): Promise<string | null> {
  const rows = await connectionOf(tx).query<{ id: string }>(
    `INSERT INTO email_messages (id, account_id, environment, kind, business_key, message_id, to_address, subject, body)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (account_id, environment, business_key) DO NOTHING
     RETURNING id`,
    {
      bind: [newId('eml'), tenant.accountId, tenant.environment, message.kind, message.businessKey, message.messageId, message.toAddress, message.subject, message.body],
      type: QueryTypes.SELECT,
      transaction: tx,
    },
  );
  return rows[0]?.id ?? null;
}

/** The row recorded under `businessKey` in the workspace environment, if any. */
export async function findEmailIdByBusinessKey(sequelize: Sequelize, tenant: Tenant, businessKey: string, transaction?: Transaction): Promise<string | null> {
  const [row] = await sequelize.query<{ id: string }>(
    `SELECT id FROM email_messages WHERE account_id = :accountId AND environment = :environment AND business_key = :businessKey`,
    { replacements: { ...tenant, businessKey }, type: QueryTypes.SELECT, transaction },
  );
  return row?.id ?? null;
}

export interface EmailToSend {
  messageId: string;
  toAddress: string;
  subject: string;
  body: string;
}

export type EmailClaim = { state: 'claimed'; email: EmailToSend } | { state: 'sent' | 'failed' | 'busy' | 'missing' };

/**
 * Takes the right to send a pending message for `leaseMs` and counts the attempt. A message already sent or
 * given up is not claimed (the retry that finds it `sent` sends nothing), nor one whose previous attempt may
 * still be talking to the SMTP server (`busy`).
 */
export async function claimEmailForSending(sequelize: Sequelize, tenant: Tenant, emailId: string, leaseMs: number): Promise<EmailClaim> {
  const [claimed] = await sequelize.query<EmailToSend>(
    `UPDATE email_messages
        SET attempts = attempts + 1, sending_until = now() + make_interval(secs => :leaseSeconds), updated_at = now()
      WHERE id = :emailId AND account_id = :accountId AND environment = :environment
        AND status = 'pending' AND (sending_until IS NULL OR sending_until < now())
      RETURNING message_id AS "messageId", to_address AS "toAddress", subject, body`,
    { replacements: { emailId, accountId: tenant.accountId, environment: tenant.environment, leaseSeconds: leaseMs / 1000 }, type: QueryTypes.SELECT },
  );
  if (claimed) return { state: 'claimed', email: claimed };
  const [row] = await sequelize.query<{ status: 'pending' | 'sent' | 'failed' }>(
    `SELECT status FROM email_messages WHERE id = :emailId AND account_id = :accountId AND environment = :environment`,
    { replacements: { emailId, accountId: tenant.accountId, environment: tenant.environment }, type: QueryTypes.SELECT },
  );
  if (!row) return { state: 'missing' };
  return { state: row.status === 'pending' ? 'busy' : row.status };
}

/** The SMTP server accepted it: sent, and the sealed body is dropped (the log keeps who, what and when). */
export async function markEmailSent(sequelize: Sequelize, tenant: Tenant, emailId: string): Promise<void> {
  await sequelize.query(
    `UPDATE email_messages SET status = 'sent', sent_at = now(), body = NULL, sending_until = NULL, last_error = NULL, updated_at = now()
      WHERE id = :emailId AND account_id = :accountId AND environment = :environment AND status = 'pending'`,
    { replacements: { emailId, accountId: tenant.accountId, environment: tenant.environment } },
  );
}

/** An attempt failed: its error is kept for the operator, and the next attempt may start at once. */
export async function recordEmailAttemptFailure(sequelize: Sequelize, tenant: Tenant, emailId: string, error: string): Promise<void> {
  await sequelize.query(
    `UPDATE email_messages SET last_error = :error, sending_until = NULL, updated_at = now()
      WHERE id = :emailId AND account_id = :accountId AND environment = :environment AND status = 'pending'`,
    { replacements: { emailId, accountId: tenant.accountId, environment: tenant.environment, error: error.slice(0, 2000) } },
  );
}

/** Given up: failed, the body dropped; the last attempt's error stays, `error` fills in only when there is none. */
export async function markEmailFailed(sequelize: Sequelize, tenant: Tenant, emailId: string, error: string): Promise<void> {
  await sequelize.query(
    `UPDATE email_messages SET status = 'failed', body = NULL, sending_until = NULL, last_error = coalesce(last_error, :error), updated_at = now()
      WHERE id = :emailId AND account_id = :accountId AND environment = :environment AND status = 'pending'`,
    { replacements: { emailId, accountId: tenant.accountId, environment: tenant.environment, error: error.slice(0, 2000) } },
  );
}
