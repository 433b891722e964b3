import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { bigintMoney, Environment, tenantColumns } from './common';

/** A full or partial refund of a completed checkout session. */
export class CheckoutRefund extends Model<InferAttributes<CheckoutRefund>, InferCreationAttributes<CheckoutRefund>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare checkoutSessionId: string;
  declare amount: number;
  declare currency: string;
  declare reason: CreationOptional<string | null>;
  /** Local refunds are bookkeeping, done when made; a provider's follows its callback. */
  declare status: CreationOptional<'pending' | 'succeeded' | 'failed'>;
  declare providerRefundId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    CheckoutRefund.init(
      {
        ...tenantColumns,
        checkoutSessionId: { type: DataTypes.TEXT, allowNull: false },
        amount: bigintMoney<CheckoutRefund>('amount'),
        currency: { type: DataTypes.TEXT, allowNull: false },
        reason: DataTypes.TEXT,
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'succeeded' },
        providerRefundId: DataTypes.TEXT,
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'checkout_refunds', updatedAt: false },
    );
  }
}
