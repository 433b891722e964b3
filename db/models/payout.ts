import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { bigintMoney, Environment, tenantColumns } from './common';

export const PAYOUT_STATUSES = ['pending', 'in_transit', 'paid', 'failed', 'cancelled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];
export const PAYOUT_BACKENDS = ['manual', 'provider'] as const;
export type PayoutBackend = (typeof PAYOUT_BACKENDS)[number];

/** A withdrawal of available balance to a bank account (document 2); the account number is stored sealed. */
export class Payout extends Model<InferAttributes<Payout>, InferCreationAttributes<Payout>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare backend: CreationOptional<PayoutBackend>;
  declare status: CreationOptional<PayoutStatus>;
  declare amount: number;
  declare currency: string;
  declare bankCode: string | null;
  declare bankName: string;
  declare bankAccountNumberSealed: string;
  declare bankAccountHolder: string;
  declare reference: CreationOptional<string | null>;
  declare failureReason: CreationOptional<string | null>;
  declare note: CreationOptional<string | null>;
  declare inTransitAt: CreationOptional<Date | null>;
  declare paidAt: CreationOptional<Date | null>;
  declare failedAt: CreationOptional<Date | null>;
  declare cancelledAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Payout.init(
      {
        ...tenantColumns,
        backend: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'manual' },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'pending' },
        amount: bigintMoney<Payout>('amount'),
        currency: { type: DataTypes.TEXT, allowNull: false },
        bankCode: DataTypes.TEXT,
        bankName: { type: DataTypes.TEXT, allowNull: false },
        bankAccountNumberSealed: { type: DataTypes.TEXT, allowNull: false },
        bankAccountHolder: { type: DataTypes.TEXT, allowNull: false },
        reference: DataTypes.TEXT,
        failureReason: DataTypes.TEXT,
        note: DataTypes.TEXT,
        inTransitAt: DataTypes.DATE,
        paidAt: DataTypes.DATE,
        failedAt: DataTypes.DATE,
        cancelledAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'payouts' },
    );
  }
}
