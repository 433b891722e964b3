import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

/** The outbox: a domain event written in the same transaction as its cause; `publishedAt` is set once fanned out. */
export class Event extends Model<InferAttributes<Event>, InferCreationAttributes<Event>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare type: string;
  declare data: Record<string, unknown>;
  declare createdAt: CreationOptional<Date>;
  declare publishedAt: CreationOptional<Date | null>;

  static initModel(sequelize: Sequelize): void {
    Event.init(
      {
        ...tenantColumns,
        type: { type: DataTypes.TEXT, allowNull: false },
        data: { type: DataTypes.JSONB, allowNull: false },
        createdAt: DataTypes.DATE,
        publishedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'events', updatedAt: false },
    );
  }
}
