import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

/** One applied use of a discount code by a checkout or order (`reference`); `amount` in the smallest unit. */
export class DiscountRedemption extends Model<InferAttributes<DiscountRedemption>, InferCreationAttributes<DiscountRedemption>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare discountId: string;
  declare reference: string;
  declare customerEmail: string | null;
  declare customerId: string | null;
  declare amount: number;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    DiscountRedemption.init(
      {
        ...tenantColumns,
        discountId: { type: DataTypes.TEXT, allowNull: false },
        reference: { type: DataTypes.TEXT, allowNull: false },
        customerEmail: DataTypes.TEXT,
        customerId: DataTypes.TEXT,
        amount: {
          type: DataTypes.BIGINT,
          allowNull: false,
          get(this: DiscountRedemption) {
            return Number(this.getDataValue('amount'));
          },
        },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'discount_redemptions', updatedAt: false },
    );
  }
}
