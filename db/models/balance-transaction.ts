import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { bigintMoney, Environment, tenantColumns } from './common';

export const BALANCE_TRANSACTION_TYPES = ['checkout_credit', 'settlement', 'refund', 'payout', 'payout_return'] as const;
export type BalanceTransactionType = (typeof BALANCE_TRANSACTION_TYPES)[number];

/** One append-only row of the balance ledger (db/ledger.ts writes it and the balance together). */
export class BalanceTransaction extends Model<InferAttributes<BalanceTransaction>, InferCreationAttributes<BalanceTransaction>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare type: BalanceTransactionType;
  declare sourceId: string;
  declare checkoutSessionId: CreationOptional<string | null>;
  declare currency: string;
  declare pendingDelta: number;
  declare availableDelta: number;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    BalanceTransaction.init(
      {
        ...tenantColumns,
        type: { type: DataTypes.TEXT, allowNull: false },
        sourceId: { type: DataTypes.TEXT, allowNull: false },
        checkoutSessionId: DataTypes.TEXT,
        currency: { type: DataTypes.TEXT, allowNull: false },
        pendingDelta: bigintMoney<BalanceTransaction>('pendingDelta'),
        availableDelta: bigintMoney<BalanceTransaction>('availableDelta'),
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'balance_transactions', updatedAt: false },
    );
  }
}
