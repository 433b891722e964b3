import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

/** A credential the merchant holds, shown on the storefront. Not linked to products. */
export class Certification extends Model<InferAttributes<Certification>, InferCreationAttributes<Certification>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare name: string;
  declare issuer: string;
  declare issuedAt: CreationOptional<Date | null>;
  declare credentialUrl: CreationOptional<string | null>;
  declare imageUrl: CreationOptional<string | null>;
  declare sortOrder: CreationOptional<number>;
  declare published: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Certification.init(
      {
        ...tenantColumns,
        name: { type: DataTypes.TEXT, allowNull: false },
        issuer: { type: DataTypes.TEXT, allowNull: false },
        issuedAt: DataTypes.DATE,
        credentialUrl: DataTypes.TEXT,
        imageUrl: DataTypes.TEXT,
        sortOrder: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        published: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'certifications' },
    );
  }
}
