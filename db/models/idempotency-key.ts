import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

/** One Idempotency-Key of a workspace environment: `processing` while its request runs, then the stored response. */
export class IdempotencyKey extends Model<InferAttributes<IdempotencyKey>, InferCreationAttributes<IdempotencyKey>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare key: string;
  declare requestMethod: string;
  declare requestPath: string;
  declare requestHash: string;
  declare state: 'processing' | 'completed';
  declare responseStatus: CreationOptional<number | null>;
  declare responseBody: CreationOptional<string | null>;
  declare responseContentType: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare completedAt: CreationOptional<Date | null>;

  static initModel(sequelize: Sequelize): void {
    IdempotencyKey.init(
      {
        ...tenantColumns,
        key: { type: DataTypes.TEXT, allowNull: false },
        requestMethod: { type: DataTypes.TEXT, allowNull: false },
        requestPath: { type: DataTypes.TEXT, allowNull: false },
        requestHash: { type: DataTypes.TEXT, allowNull: false },
        state: { type: DataTypes.TEXT, allowNull: false },
        responseStatus: DataTypes.INTEGER,
        responseBody: DataTypes.TEXT,
        responseContentType: DataTypes.TEXT,
        createdAt: DataTypes.DATE,
        completedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'idempotency_keys', updatedAt: false },
    );
  }
}
