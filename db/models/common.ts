import { DataTypes } from 'sequelize';

export const ENVIRONMENTS = ['test', 'live'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** The columns every tenant table starts with. */
export const tenantColumns = {
  id: { type: DataTypes.TEXT, primaryKey: true },
  accountId: { type: DataTypes.TEXT, allowNull: false },
  environment: { type: DataTypes.TEXT, allowNull: false },
} as const;

/**
 * A bigint money column read as a number: pg returns bigint as a string, and amounts stay far below 2^53, so the
 * number is exact. `columns: { amount: bigintMoney('amount'), ... }`.
 */
export function bigintMoney<M extends { getDataValue(key: never): unknown }>(attribute: string, allowNull = false) {
  return {
    type: DataTypes.BIGINT,
    allowNull,
    get(this: M) {
      const raw = (this.getDataValue as (key: string) => number | string | null)(attribute);
      return raw === null || raw === undefined ? raw : Number(raw);
    },
  };
}
