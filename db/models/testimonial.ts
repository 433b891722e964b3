import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

/** A customer quote shown on the storefront, optionally about one of the workspace's products. */
export class Testimonial extends Model<InferAttributes<Testimonial>, InferCreationAttributes<Testimonial>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare authorName: string;
  declare authorRole: CreationOptional<string | null>;
  declare quote: string;
  declare rating: CreationOptional<number | null>;
  declare avatarUrl: CreationOptional<string | null>;
  declare productId: CreationOptional<string | null>;
  declare sortOrder: CreationOptional<number>;
  declare published: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Testimonial.init(
      {
        ...tenantColumns,
        authorName: { type: DataTypes.TEXT, allowNull: false },
        authorRole: DataTypes.TEXT,
        quote: { type: DataTypes.TEXT, allowNull: false },
        rating: DataTypes.SMALLINT,
        avatarUrl: DataTypes.TEXT,
        productId: DataTypes.TEXT,
        sortOrder: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        published: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'testimonials' },
    );
  }
}
