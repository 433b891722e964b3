import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import type { Environment } from './common';

/** A signed-in dashboard browser: found by the hash of its cookie, showing one workspace and environment. */
export class DashboardSession extends Model<InferAttributes<DashboardSession>, InferCreationAttributes<DashboardSession>> {
  declare id: string;
  declare tokenHash: string;
  declare userId: string;
  declare accountId: string;
  declare environment: Environment;
  /** The synchronizer token every form of this session carries. */
  declare csrfToken: string;
  declare createdAt: CreationOptional<Date>;
  declare expiresAt: Date;

  static initModel(sequelize: Sequelize): void {
    DashboardSession.init(
      {
        id: { type: DataTypes.TEXT, primaryKey: true },
        tokenHash: { type: DataTypes.TEXT, allowNull: false },
        userId: { type: DataTypes.TEXT, allowNull: false },
        accountId: { type: DataTypes.TEXT, allowNull: false },
        environment: { type: DataTypes.TEXT, allowNull: false },
        csrfToken: { type: DataTypes.TEXT, allowNull: false },
        createdAt: DataTypes.DATE,
        expiresAt: { type: DataTypes.DATE, allowNull: false },
      },
      { sequelize, tableName: 'dashboard_sessions', underscored: true, updatedAt: false },
    );
  }
}
