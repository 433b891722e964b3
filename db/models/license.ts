import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

export const LICENSE_STATUSES = ['active', 'expired', 'revoked'] as const;
export type LicenseStatus = (typeof LICENSE_STATUSES)[number];

/** A licence key issued for a purchase; its activations are rows of license_activations (db/licenses.ts). */
export class License extends Model<InferAttributes<License>, InferCreationAttributes<License>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare key: string;
  declare productId: string;
  declare customerId: CreationOptional<string | null>;
  declare checkoutSessionId: CreationOptional<string | null>;
  declare lineKey: CreationOptional<string | null>;
  declare maxActivations: number;
  declare status: CreationOptional<LicenseStatus>;
  declare expiresAt: CreationOptional<Date | null>;
  declare revokedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    License.init(
      {
        ...tenantColumns,
        key: { type: DataTypes.TEXT, allowNull: false },
        productId: { type: DataTypes.TEXT, allowNull: false },
        customerId: DataTypes.TEXT,
        checkoutSessionId: DataTypes.TEXT,
        lineKey: DataTypes.TEXT,
        maxActivations: { type: DataTypes.INTEGER, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'active' },
        expiresAt: DataTypes.DATE,
        revokedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'licenses' },
    );
  }
}
