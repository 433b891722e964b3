import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

/** A persistent buyer record of a workspace (document 2); `cust_` ids in local mode. */
export class Customer extends Model<InferAttributes<Customer>, InferCreationAttributes<Customer>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare email: string | null;
  declare name: string | null;
  declare metadata: CreationOptional<Record<string, string>>;
  declare testClockId: CreationOptional<string | null>;
  /** The provider's customer (provider mode, `cus_` ids). */
  declare providerCustomerId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Customer.init(
      {
        ...tenantColumns,
        email: DataTypes.TEXT,
        name: DataTypes.TEXT,
        metadata: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        testClockId: DataTypes.TEXT,
        providerCustomerId: DataTypes.TEXT,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'customers' },
    );
  }
}
