import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { bigintMoney, Environment, tenantColumns } from './common';

export const STOCK_MOVE_KINDS = ['adjust', 'reserve', 'release', 'commit', 'restock'] as const;
export type StockMoveKind = (typeof STOCK_MOVE_KINDS)[number];

export const STOCK_ACTOR_TYPES = ['api_key', 'workflow', 'user'] as const;
export type StockActorType = (typeof STOCK_ACTOR_TYPES)[number];

/**
 * One change of a stock row: the deltas and the balances they left, who moved it and why. Append-only; `seq`
 * orders a stock row's movements as they happened (db/migrations/0017-inventory.ts).
 */
export class StockMovement extends Model<InferAttributes<StockMovement>, InferCreationAttributes<StockMovement>> {
  declare id: string;
  declare seq: CreationOptional<number>;
  declare accountId: string;
  declare environment: Environment;
  declare variantId: string;
  declare warehouseId: string;
  declare kind: StockMoveKind;
  declare reason: string;
  declare delta: number;
  declare balance: number;
  declare reservedDelta: number;
  declare reservedBalance: number;
  declare incomingDelta: number;
  declare incomingBalance: number;
  declare actorType: StockActorType;
  declare actorId: string;
  declare reference: CreationOptional<string | null>;
  declare note: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    StockMovement.init(
      {
        ...tenantColumns,
        seq: { ...bigintMoney<StockMovement>('seq'), autoIncrement: true },
        variantId: { type: DataTypes.TEXT, allowNull: false },
        warehouseId: { type: DataTypes.TEXT, allowNull: false },
        kind: { type: DataTypes.TEXT, allowNull: false },
        reason: { type: DataTypes.TEXT, allowNull: false },
        // Counts, not money; bigintMoney only reads the bigint columns as numbers.
        delta: bigintMoney<StockMovement>('delta'),
        balance: bigintMoney<StockMovement>('balance'),
        reservedDelta: bigintMoney<StockMovement>('reservedDelta'),
        reservedBalance: bigintMoney<StockMovement>('reservedBalance'),
        incomingDelta: bigintMoney<StockMovement>('incomingDelta'),
        incomingBalance: bigintMoney<StockMovement>('incomingBalance'),
        actorType: { type: DataTypes.TEXT, allowNull: false },
        actorId: { type: DataTypes.TEXT, allowNull: false },
        reference: DataTypes.TEXT,
        note: DataTypes.TEXT,
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'stock_movements', updatedAt: false },
    );
  }
}
