import type { Sequelize } from 'sequelize';
import { Account } from './account';
import { ApiKey } from './api-key';
import { AuditLog } from './audit-log';
import { Event } from './event';
import { IdempotencyKey } from './idempotency-key';

export { Account, ApiKey, AuditLog, Event, IdempotencyKey };
export type { Plan } from './account';
export type { KeyAccess } from './api-key';
export type { Environment } from './common';

export function initModels(sequelize: Sequelize): void {
  for (const model of [Account, ApiKey, AuditLog, Event, IdempotencyKey]) model.initModel(sequelize);
}
