import { QueryTypes, type Transaction } from 'sequelize';
import { newId } from '../lib/ids';
import { AuditLog, Event } from './models';
import type { Environment } from './models';

export interface Tenant {
  accountId: string;
  environment: Environment;
}

export interface EmittedEvent {
  id: string;
  type: string;
  createdAt: Date;
}

/**
 * Records a domain event inside the caller's transaction, so the event exists exactly when the change
 * that caused it commits. Fan-out to webhook endpoints reads unpublished rows later.
 */
export async function emit(tx: Transaction, tenant: Tenant, type: string, data: Record<string, unknown>): Promise<EmittedEvent> {
  // A plain INSERT: every write request emits, and building a model instance costs more than the statement.
  const [event] = await Event.sequelize!.query<EmittedEvent>(
    `INSERT INTO events (id, account_id, environment, type, data) VALUES ($1, $2, $3, $4, $5)
     RETURNING id, type, created_at AS "createdAt"`,
    { bind: [newId('evt'), tenant.accountId, tenant.environment, type, JSON.stringify(data)], type: QueryTypes.SELECT, transaction: tx },
  );
  return event!;
}

export interface AuditEntry {
  action: string;
  actorApiKeyId: string | null;
  targetType: string;
  targetId: string;
  data?: Record<string, unknown>;
}

/** Appends to the audit log inside the caller's transaction. */
export async function audit(tx: Transaction, tenant: Tenant, entry: AuditEntry): Promise<void> {
  await AuditLog.create({ id: newId('alog'), ...tenant, ...entry, data: entry.data ?? {} }, { transaction: tx });
}
