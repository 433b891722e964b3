import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

export const PRODUCT_TYPES = ['digital', 'subscription', 'physical'] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];
export const CURRENCIES = ['IDR', 'USD'] as const;
export type Currency = (typeof CURRENCIES)[number];
export type AiStatus = 'generating' | 'completed' | 'failed';

/** A catalogue product. `price` is an integer in whole currency units; archived rows are kept (soft delete). */
export class Product extends Model<InferAttributes<Product>, InferCreationAttributes<Product>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare name: string;
  declare slug: string;
  declare description: CreationOptional<string | null>;
  declare price: number;
  declare currency: Currency;
  declare type: ProductType;
  declare thumbnail: CreationOptional<string | null>;
  declare coverImages: CreationOptional<string[]>;
  declare tags: CreationOptional<string[]>;
  declare aiGenerated: CreationOptional<boolean>;
  declare aiStatus: CreationOptional<AiStatus | null>;
  declare licenseEnabled: CreationOptional<boolean>;
  declare maxActivations: CreationOptional<number>;
  declare weight: CreationOptional<number | null>;
  declare length: CreationOptional<number | null>;
  declare width: CreationOptional<number | null>;
  declare height: CreationOptional<number | null>;
  declare originAreaId: CreationOptional<string | null>;
  declare requiresInsurance: CreationOptional<boolean>;
  declare gtin: CreationOptional<string | null>;
  declare googleProductCategory: CreationOptional<string | null>;
  declare brand: CreationOptional<string | null>;
  declare feedExcluded: CreationOptional<boolean>;
  declare madeToOrder: CreationOptional<boolean>;
  declare preorderShipsFrom: CreationOptional<Date | null>;
  declare leadTimeText: CreationOptional<string | null>;
  declare batchHint: CreationOptional<string | null>;
  declare published: CreationOptional<boolean>;
  declare archived: CreationOptional<boolean>;
  declare hasVariants: CreationOptional<boolean>;
  declare metadata: CreationOptional<Record<string, string>>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Product.init(
      {
        ...tenantColumns,
        name: { type: DataTypes.TEXT, allowNull: false },
        slug: { type: DataTypes.TEXT, allowNull: false },
        description: DataTypes.TEXT,
        // bigint comes back from pg as a string; prices are far below 2^53, so a number is exact.
        price: {
          type: DataTypes.BIGINT,
          allowNull: false,
          get(this: Product) {
            return Number(this.getDataValue('price'));
          },
        },
        currency: { type: DataTypes.TEXT, allowNull: false },
        type: { type: DataTypes.TEXT, allowNull: false },
        thumbnail: DataTypes.TEXT,
        coverImages: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
        tags: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
        aiGenerated: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        aiStatus: DataTypes.TEXT,
        licenseEnabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        maxActivations: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
        weight: DataTypes.INTEGER,
        length: DataTypes.INTEGER,
        width: DataTypes.INTEGER,
        height: DataTypes.INTEGER,
        originAreaId: DataTypes.TEXT,
        requiresInsurance: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        gtin: DataTypes.TEXT,
        googleProductCategory: DataTypes.TEXT,
        brand: DataTypes.TEXT,
        feedExcluded: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        madeToOrder: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        preorderShipsFrom: DataTypes.DATE,
        leadTimeText: DataTypes.TEXT,
        batchHint: DataTypes.TEXT,
        published: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        archived: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        hasVariants: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        metadata: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'products' },
    );
  }
}
