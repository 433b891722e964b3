import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

/** A piece of past work shown on the storefront, optionally linked to one of the workspace's products. */
export class PortfolioItem extends Model<InferAttributes<PortfolioItem>, InferCreationAttributes<PortfolioItem>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare title: string;
  declare description: CreationOptional<string>;
  declare images: CreationOptional<string[]>;
  declare productId: CreationOptional<string | null>;
  declare externalUrl: CreationOptional<string | null>;
  declare clientName: CreationOptional<string | null>;
  declare completedAt: CreationOptional<Date | null>;
  declare sortOrder: CreationOptional<number>;
  declare published: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    PortfolioItem.init(
      {
        ...tenantColumns,
        title: { type: DataTypes.TEXT, allowNull: false },
        description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
        images: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
        productId: DataTypes.TEXT,
        externalUrl: DataTypes.TEXT,
        clientName: DataTypes.TEXT,
        completedAt: DataTypes.DATE,
        sortOrder: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        published: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'portfolio_items' },
    );
  }
}
