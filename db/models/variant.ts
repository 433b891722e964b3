import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { bigintMoney, Environment, tenantColumns } from './common';

/** A purchasable variant of a product; `priceDelta` (whole units) is added to the product's price. */
export class Variant extends Model<InferAttributes<Variant>, InferCreationAttributes<Variant>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare productId: string;
  declare sku: CreationOptional<string | null>;
  declare name: string;
  declare priceDelta: CreationOptional<number>;
  declare costPrice: CreationOptional<number | null>;
  declare lowStockThreshold: CreationOptional<number | null>;
  declare isDefault: CreationOptional<boolean>;
  declare archived: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Variant.init(
      {
        ...tenantColumns,
        productId: { type: DataTypes.TEXT, allowNull: false },
        sku: DataTypes.TEXT,
        name: { type: DataTypes.TEXT, allowNull: false },
        priceDelta: { ...bigintMoney<Variant>('priceDelta'), defaultValue: 0 },
        costPrice: bigintMoney<Variant>('costPrice', true),
        lowStockThreshold: DataTypes.INTEGER,
        isDefault: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        archived: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'variants' },
    );
  }
}
