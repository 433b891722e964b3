import type { Sequelize, Transaction } from 'sequelize';
import type { EventType } from '../lib/event-types';
import { newId } from '../lib/ids';
import { captureOrigin } from '../lib/tracing';
import { AuditLog } from './models';
import type { Statement } from './pagination';
import { plainQueryIn } from './plain-query';
import type { Tenant } from './tenancy';

export interface EmittedEvent {
  id: string;
  type: EventType;
  createdAt: Date;
}

/** The `sequelize` a transaction belongs to (set at runtime, missing from Sequelize's typings). */
export function connectionOf(tx: Transaction): Sequelize {
  return (tx as Transaction & { sequelize: Sequelize }).sequelize;
}

/**
 * Records a domain event inside the caller's transaction, so the event exists exactly when the change
 * that caused it commits. Fan-out to webhook endpoints reads unpublished rows later. Only types of the one
 * event registry (lib/event-types.ts) can be emitted. The row keeps the active trace context and request id, which the
 * deliveries it fans out to continue.
 */
export async function emit(tx: Transaction, tenant: Tenant, type: EventType, data: Record<string, unknown>): Promise<EmittedEvent> {
  const { text, values } = eventInsertStatement(tenant, type, data);
  // On the transaction's connection as a prepared statement: every write emits, and Sequelize's query pipeline cost more than the INSERT.
  const [event] = await plainQueryIn<EmittedEvent>(tx, text, values);
  return event!;
}

/** emit's statement; exported so the bench's ceilings send the very same one. */
export function eventInsertStatement(tenant: Tenant, type: EventType, data: Record<string, unknown>): Statement {
  // A plain INSERT: every write request emits, and building a model instance costs more than the statement.
  return {
    text: `INSERT INTO events (id, account_id, environment, type, data, trace_context) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING id, type, created_at AS "createdAt"`,
    values: [newId('evt'), tenant.accountId, tenant.environment, type, JSON.stringify(data), originJson()],
  };
}

/** The recording flow's origin as a jsonb parameter (NULL when there is none). */
export function originJson(): string | null {
  const origin = captureOrigin();
  return origin ? JSON.stringify(origin) : null;
}

export interface AuditEntry {
  action: string;
  actorApiKeyId: string | null;
  /** The dashboard user who acted, when one did. */
  actorUserId?: string | null;
  targetType: string;
  targetId: string;
  data?: Record<string, unknown>;
}

/** Appends to the audit log inside the caller's transaction. */
export async function audit(tx: Transaction, tenant: Tenant, entry: AuditEntry): Promise<void> {
  await AuditLog.create({ id: newId('alog'), accountId: tenant.accountId, environment: tenant.environment, ...entry, data: entry.data ?? {} }, { transaction: tx });
}
