import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

export type KeyAccess = 'secret' | 'publishable';

/** Metadata of an API key. The key itself is never stored, only its SHA-256 hash. */
export class ApiKey extends Model<InferAttributes<ApiKey>, InferCreationAttributes<ApiKey>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare access: KeyAccess;
  declare name: string;
  declare prefix: string;
  declare last4: string;
  declare keyHash: string;
  declare createdAt: CreationOptional<Date>;
  declare lastUsedAt: CreationOptional<Date | null>;
  declare revokedAt: CreationOptional<Date | null>;
  /** Set by a rotation: the old value works until then. */
  declare expiresAt: CreationOptional<Date | null>;
  declare replacedByKeyId: CreationOptional<string | null>;

  static initModel(sequelize: Sequelize): void {
    ApiKey.init(
      {
        ...tenantColumns,
        access: { type: DataTypes.TEXT, allowNull: false },
        name: { type: DataTypes.TEXT, allowNull: false },
        prefix: { type: DataTypes.TEXT, allowNull: false },
        last4: { type: DataTypes.TEXT, allowNull: false },
        keyHash: { type: DataTypes.TEXT, allowNull: false },
        createdAt: DataTypes.DATE,
        lastUsedAt: DataTypes.DATE,
        revokedAt: DataTypes.DATE,
        expiresAt: DataTypes.DATE,
        replacedByKeyId: DataTypes.TEXT,
      },
      { sequelize, tableName: 'api_keys', updatedAt: false },
    );
  }
}
