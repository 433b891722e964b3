import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import type { Environment } from './common';

/** The bank account one environment of a workspace pays out to; the account number is stored sealed. */
export class PayoutBankAccount extends Model<InferAttributes<PayoutBankAccount>, InferCreationAttributes<PayoutBankAccount>> {
  declare accountId: string;
  declare environment: Environment;
  declare bankCode: string | null;
  declare bankName: string;
  declare bankAccountNumberSealed: string;
  declare bankAccountHolder: string;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    PayoutBankAccount.init(
      {
        accountId: { type: DataTypes.TEXT, primaryKey: true },
        environment: { type: DataTypes.TEXT, primaryKey: true },
        bankCode: DataTypes.TEXT,
        bankName: { type: DataTypes.TEXT, allowNull: false },
        bankAccountNumberSealed: { type: DataTypes.TEXT, allowNull: false },
        bankAccountHolder: { type: DataTypes.TEXT, allowNull: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'payout_bank_accounts' },
    );
  }
}
