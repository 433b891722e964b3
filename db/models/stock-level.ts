import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { bigintMoney, Environment } from './common';

/**
 * The stock of one variant in one warehouse. Written only by moveStock (domain/inventory/stock.ts) together
 * with its movement row; a (variant, warehouse) never moved has no row and reads as zeros.
 */
export class StockLevel extends Model<InferAttributes<StockLevel>, InferCreationAttributes<StockLevel>> {
  declare variantId: string;
  declare warehouseId: string;
  declare accountId: string;
  declare environment: Environment;
  declare available: CreationOptional<number>;
  declare reserved: CreationOptional<number>;
  declare incoming: CreationOptional<number>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    StockLevel.init(
      {
        variantId: { type: DataTypes.TEXT, primaryKey: true },
        warehouseId: { type: DataTypes.TEXT, primaryKey: true },
        accountId: { type: DataTypes.TEXT, allowNull: false },
        environment: { type: DataTypes.TEXT, allowNull: false },
        // Counts, not money; bigintMoney only reads the bigint column as a number.
        available: bigintMoney<StockLevel>('available'),
        reserved: bigintMoney<StockLevel>('reserved'),
        incoming: bigintMoney<StockLevel>('incoming'),
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'stock_levels', createdAt: false },
    );
  }
}
