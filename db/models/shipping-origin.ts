import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import type { Environment } from './common';

/** A workspace environment's ship-from origin: one row, written by PATCH /v1/shipping/origin. */
export class ShippingOrigin extends Model<InferAttributes<ShippingOrigin>, InferCreationAttributes<ShippingOrigin>> {
  declare accountId: string;
  declare environment: Environment;
  declare address: string;
  declare contactName: string;
  declare contactPhone: string;
  declare province: CreationOptional<string | null>;
  declare city: CreationOptional<string | null>;
  declare district: CreationOptional<string | null>;
  declare village: CreationOptional<string | null>;
  declare postal: CreationOptional<string | null>;
  declare areaId: CreationOptional<string | null>;
  declare lat: CreationOptional<number | null>;
  declare lng: CreationOptional<number | null>;
  declare note: CreationOptional<string | null>;
  declare couriers: CreationOptional<string[]>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    ShippingOrigin.init(
      {
        accountId: { type: DataTypes.TEXT, primaryKey: true },
        environment: { type: DataTypes.TEXT, primaryKey: true },
        address: { type: DataTypes.TEXT, allowNull: false },
        contactName: { type: DataTypes.TEXT, allowNull: false },
        contactPhone: { type: DataTypes.TEXT, allowNull: false },
        province: DataTypes.TEXT,
        city: DataTypes.TEXT,
        district: DataTypes.TEXT,
        village: DataTypes.TEXT,
        postal: DataTypes.TEXT,
        areaId: DataTypes.TEXT,
        lat: DataTypes.DOUBLE,
        lng: DataTypes.DOUBLE,
        note: DataTypes.TEXT,
        couriers: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'shipping_origins' },
    );
  }
}
