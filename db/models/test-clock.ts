import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

/** A test-environment clock (ARCHITECTURE.md): its customers' subscriptions follow `frozenTime`. */
export class TestClock extends Model<InferAttributes<TestClock>, InferCreationAttributes<TestClock>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare name: CreationOptional<string | null>;
  declare frozenTime: Date;
  declare status: CreationOptional<'ready' | 'advancing'>;
  declare deletedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    TestClock.init(
      {
        ...tenantColumns,
        name: DataTypes.TEXT,
        frozenTime: { type: DataTypes.DATE, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'ready' },
        deletedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'test_clocks' },
    );
  }
}
