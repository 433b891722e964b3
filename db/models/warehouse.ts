import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

/** A stock location of the fulfillment module; archived rows are kept (their stock rows and movements point at them). */
export class Warehouse extends Model<InferAttributes<Warehouse>, InferCreationAttributes<Warehouse>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare name: string;
  declare address: CreationOptional<string | null>;
  declare city: CreationOptional<string | null>;
  declare postal: CreationOptional<string | null>;
  declare phone: CreationOptional<string | null>;
  declare isDefault: CreationOptional<boolean>;
  declare archived: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Warehouse.init(
      {
        ...tenantColumns,
        name: { type: DataTypes.TEXT, allowNull: false },
        address: DataTypes.TEXT,
        city: DataTypes.TEXT,
        postal: DataTypes.TEXT,
        phone: DataTypes.TEXT,
        isDefault: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        archived: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'warehouses' },
    );
  }
}
