import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { bigintMoney, Environment, tenantColumns } from './common';

export const BILLING_INTERVALS = ['daily', 'weekly', 'monthly', 'yearly'] as const;
export type BillingInterval = (typeof BILLING_INTERVALS)[number];

/** A recurring price a subscription follows; `amount` per interval in the smallest currency unit. */
export class BillingPlan extends Model<InferAttributes<BillingPlan>, InferCreationAttributes<BillingPlan>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare name: string;
  declare description: CreationOptional<string | null>;
  declare amount: number;
  declare currency: string;
  declare interval: BillingInterval;
  declare intervalCount: CreationOptional<number>;
  declare trialDays: CreationOptional<number | null>;
  declare active: CreationOptional<boolean>;
  declare metadata: CreationOptional<Record<string, string>>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    BillingPlan.init(
      {
        ...tenantColumns,
        name: { type: DataTypes.TEXT, allowNull: false },
        description: DataTypes.TEXT,
        amount: bigintMoney<BillingPlan>('amount'),
        currency: { type: DataTypes.TEXT, allowNull: false },
        interval: { type: DataTypes.TEXT, allowNull: false },
        intervalCount: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
        trialDays: DataTypes.INTEGER,
        active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        metadata: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'plans' },
    );
  }
}
