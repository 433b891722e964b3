import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

/** A merchant's referral link: a code that sends visitors to a product or the landing page, with its counters. */
export class ReferralLink extends Model<InferAttributes<ReferralLink>, InferCreationAttributes<ReferralLink>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare code: string;
  declare label: CreationOptional<string | null>;
  declare targetProductId: CreationOptional<string | null>;
  declare active: CreationOptional<boolean>;
  declare clicks: CreationOptional<number>;
  declare captures: CreationOptional<number>;
  declare conversions: CreationOptional<number>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    ReferralLink.init(
      {
        ...tenantColumns,
        code: { type: DataTypes.TEXT, allowNull: false },
        label: DataTypes.TEXT,
        targetProductId: DataTypes.TEXT,
        active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        clicks: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        captures: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        conversions: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'referral_links' },
    );
  }
}
