import type { Transaction } from 'sequelize';
import { newId } from '../lib/ids';
import { AuditLog, Event } from './models';
import type { Environment } from './models';

export interface Tenant {
  accountId: string;
  environment: Environment;
}

/**
 * Records a domain event inside the caller's transaction, so the event exists exactly when the change
 * that caused it commits. Fan-out to webhook endpoints reads unpublished rows later.
 */
export async function emit(tx: Transaction, tenant: Tenant, type: string, data: Record<string, unknown>): Promise<Event> {
  return Event.create({ id: newId('evt'), ...tenant, type, data }, { transaction: tx });
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
