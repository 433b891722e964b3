import { DataTypes } from 'sequelize';

export const ENVIRONMENTS = ['test', 'live'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** The columns every tenant table starts with. */
export const tenantColumns = {
  id: { type: DataTypes.TEXT, primaryKey: true },
  accountId: { type: DataTypes.TEXT, allowNull: false },
  environment: { type: DataTypes.TEXT, allowNull: false },
} as const;
