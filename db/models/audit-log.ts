import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

/** Who did what to which record; for changes that emit no webhook event (API keys, endpoints). */
export class AuditLog extends Model<InferAttributes<AuditLog>, InferCreationAttributes<AuditLog>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare action: string;
  declare actorApiKeyId: string | null;
  /** The dashboard user who acted (docs/decisions/dashboard.md); null for an API key or the system. */
  declare actorUserId: CreationOptional<string | null>;
  declare targetType: string;
  declare targetId: string;
  declare data: CreationOptional<Record<string, unknown>>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    AuditLog.init(
      {
        ...tenantColumns,
        action: { type: DataTypes.TEXT, allowNull: false },
        actorApiKeyId: DataTypes.TEXT,
        actorUserId: DataTypes.TEXT,
        targetType: { type: DataTypes.TEXT, allowNull: false },
        targetId: { type: DataTypes.TEXT, allowNull: false },
        data: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'audit_logs', updatedAt: false },
    );
  }
}
