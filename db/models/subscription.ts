import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { bigintMoney, Environment, tenantColumns } from './common';
import type { InvoiceLineItem } from './invoice';

export const SUBSCRIPTION_STATUSES = ['active', 'trialing', 'past_due', 'paused', 'canceled', 'unpaid'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** A customer's recurring billing on a plan (document 2), driven by its `subscription:sub_…` workflow. */
export class Subscription extends Model<InferAttributes<Subscription>, InferCreationAttributes<Subscription>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  /** Who collects its charges, fixed at creation: `local` (hosted checkout) or `provider` (the payment module). */
  declare backend: CreationOptional<'local' | 'provider'>;
  declare customerId: string;
  declare planId: string;
  declare testClockId: CreationOptional<string | null>;
  declare status: SubscriptionStatus;
  declare billingAnchor: Date;
  declare cycle: number;
  declare currentPeriodStart: Date;
  declare currentPeriodEnd: Date;
  declare currentPeriodAmount: number;
  declare trialEnd: CreationOptional<Date | null>;
  declare cancelAtPeriodEnd: CreationOptional<boolean>;
  declare canceledAt: CreationOptional<Date | null>;
  declare pausedAt: CreationOptional<Date | null>;
  declare failedPaymentCount: CreationOptional<number>;
  declare pastDueSince: CreationOptional<Date | null>;
  declare retriesDone: CreationOptional<number>;
  declare nextRetryAt: CreationOptional<Date | null>;
  declare pendingInvoiceItems: CreationOptional<InvoiceLineItem[]>;
  declare latestInvoiceId: CreationOptional<string | null>;
  declare metadata: CreationOptional<Record<string, string>>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Subscription.init(
      {
        ...tenantColumns,
        backend: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'local' },
        customerId: { type: DataTypes.TEXT, allowNull: false },
        planId: { type: DataTypes.TEXT, allowNull: false },
        testClockId: DataTypes.TEXT,
        status: { type: DataTypes.TEXT, allowNull: false },
        billingAnchor: { type: DataTypes.DATE, allowNull: false },
        cycle: { type: DataTypes.INTEGER, allowNull: false },
        currentPeriodStart: { type: DataTypes.DATE, allowNull: false },
        currentPeriodEnd: { type: DataTypes.DATE, allowNull: false },
        currentPeriodAmount: bigintMoney<Subscription>('currentPeriodAmount'),
        trialEnd: DataTypes.DATE,
        cancelAtPeriodEnd: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        canceledAt: DataTypes.DATE,
        pausedAt: DataTypes.DATE,
        failedPaymentCount: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        pastDueSince: DataTypes.DATE,
        retriesDone: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        nextRetryAt: DataTypes.DATE,
        pendingInvoiceItems: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
        latestInvoiceId: DataTypes.TEXT,
        metadata: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'subscriptions' },
    );
  }
}
