import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import type { Environment } from './common';

export const CHARGE_REASONS = ['subscription_create', 'subscription_cycle', 'subscription_update'] as const;
export type ChargeReason = (typeof CHARGE_REASONS)[number];
export type ChargeState = 'pending' | 'failed' | 'paid' | 'void';

/** One invoice a subscription collects, as the subscription sees it: pending, failed (in dunning), paid or void. */
export class SubscriptionCharge extends Model<InferAttributes<SubscriptionCharge>, InferCreationAttributes<SubscriptionCharge>> {
  declare invoiceId: string;
  declare accountId: string;
  declare environment: Environment;
  declare subscriptionId: string;
  declare reason: ChargeReason;
  declare state: CreationOptional<ChargeState>;
  declare dueAt: Date;
  declare resolvedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    SubscriptionCharge.init(
      {
        invoiceId: { type: DataTypes.TEXT, primaryKey: true },
        accountId: { type: DataTypes.TEXT, allowNull: false },
        environment: { type: DataTypes.TEXT, allowNull: false },
        subscriptionId: { type: DataTypes.TEXT, allowNull: false },
        reason: { type: DataTypes.TEXT, allowNull: false },
        state: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'pending' },
        dueAt: { type: DataTypes.DATE, allowNull: false },
        resolvedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'subscription_charges', updatedAt: false },
    );
  }
}
