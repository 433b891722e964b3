import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

/** A Markdown article of the merchant's storefront blog. */
export class BlogPost extends Model<InferAttributes<BlogPost>, InferCreationAttributes<BlogPost>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare title: string;
  declare slug: string;
  declare body: CreationOptional<string>;
  declare excerpt: CreationOptional<string | null>;
  declare coverImage: CreationOptional<string | null>;
  declare published: CreationOptional<boolean>;
  declare publishedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    BlogPost.init(
      {
        ...tenantColumns,
        title: { type: DataTypes.TEXT, allowNull: false },
        slug: { type: DataTypes.TEXT, allowNull: false },
        body: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
        excerpt: DataTypes.TEXT,
        coverImage: DataTypes.TEXT,
        published: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        publishedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'blog_posts' },
    );
  }
}
