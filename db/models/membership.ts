import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';

export const MEMBERSHIP_ROLES = ['owner', 'member'] as const;
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

/** A user's place in a workspace; at most one `owner` per workspace (a unique partial index). */
export class Membership extends Model<InferAttributes<Membership>, InferCreationAttributes<Membership>> {
  declare userId: string;
  declare accountId: string;
  declare role: MembershipRole;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Membership.init(
      {
        userId: { type: DataTypes.TEXT, primaryKey: true },
        accountId: { type: DataTypes.TEXT, primaryKey: true },
        role: { type: DataTypes.TEXT, allowNull: false },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'memberships', underscored: true, updatedAt: false },
    );
  }
}
