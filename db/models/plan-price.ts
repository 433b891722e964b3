import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { bigintMoney, Environment, tenantColumns } from './common';
import type { BillingInterval } from './plan';

/** A price tier of a plan; amount and currency never change once created. */
export class PlanPrice extends Model<InferAttributes<PlanPrice>, InferCreationAttributes<PlanPrice>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare planId: string;
  declare amount: number;
  declare currency: string;
  declare interval: BillingInterval;
  declare nickname: CreationOptional<string | null>;
  declare active: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    PlanPrice.init(
      {
        ...tenantColumns,
        planId: { type: DataTypes.TEXT, allowNull: false },
        amount: bigintMoney<PlanPrice>('amount'),
        currency: { type: DataTypes.TEXT, allowNull: false },
        interval: { type: DataTypes.TEXT, allowNull: false },
        nickname: DataTypes.TEXT,
        active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'plan_prices' },
    );
  }
}
