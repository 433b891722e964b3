import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';

/** A hostname that serves one workspace's storefront; unique across all workspaces (the hostname is the key). */
export class CustomDomain extends Model<InferAttributes<CustomDomain>, InferCreationAttributes<CustomDomain>> {
  declare hostname: string;
  declare accountId: string;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    CustomDomain.init(
      {
        hostname: { type: DataTypes.TEXT, primaryKey: true },
        accountId: { type: DataTypes.TEXT, allowNull: false },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'custom_domains', updatedAt: false },
    );
  }
}
