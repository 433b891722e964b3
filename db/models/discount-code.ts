import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';
import type { Currency } from './product';

export const DISCOUNT_TYPES = ['percent', 'fixed', 'shipping_percent', 'shipping_fixed'] as const;
export type DiscountType = (typeof DISCOUNT_TYPES)[number];
export const DISCOUNT_SCOPES = ['cart', 'products', 'tags'] as const;
export type DiscountScope = (typeof DISCOUNT_SCOPES)[number];

/** bigint columns come back from pg as strings; amounts stay far below 2^53, so a number is exact. */
const bigintAsNumber = (attribute: 'value' | 'minPurchaseAmount') =>
  function get(this: DiscountCode) {
    const raw = this.getDataValue(attribute) as number | string | null;
    return raw === null ? null : Number(raw);
  };

/** A discount code. `value` of fixed types and `minPurchaseAmount` are in the currency's smallest unit. */
export class DiscountCode extends Model<InferAttributes<DiscountCode>, InferCreationAttributes<DiscountCode>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare code: string;
  declare description: CreationOptional<string | null>;
  declare type: DiscountType;
  declare value: number;
  declare currency: Currency;
  declare scope: CreationOptional<DiscountScope>;
  declare productIds: CreationOptional<string[] | null>;
  declare tagFilter: CreationOptional<string[] | null>;
  declare minPurchaseAmount: CreationOptional<number | null>;
  declare maxUsesTotal: CreationOptional<number | null>;
  declare maxUsesPerCustomer: CreationOptional<number | null>;
  declare usesTotal: CreationOptional<number>;
  declare startsAt: CreationOptional<Date | null>;
  declare expiresAt: CreationOptional<Date | null>;
  declare active: CreationOptional<boolean>;
  declare public: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    DiscountCode.init(
      {
        ...tenantColumns,
        code: { type: DataTypes.TEXT, allowNull: false },
        description: DataTypes.TEXT,
        type: { type: DataTypes.TEXT, allowNull: false },
        value: { type: DataTypes.BIGINT, allowNull: false, get: bigintAsNumber('value') },
        currency: { type: DataTypes.TEXT, allowNull: false },
        scope: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'cart' },
        productIds: DataTypes.ARRAY(DataTypes.TEXT),
        tagFilter: DataTypes.ARRAY(DataTypes.TEXT),
        minPurchaseAmount: { type: DataTypes.BIGINT, get: bigintAsNumber('minPurchaseAmount') },
        maxUsesTotal: DataTypes.INTEGER,
        maxUsesPerCustomer: DataTypes.INTEGER,
        usesTotal: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        startsAt: DataTypes.DATE,
        expiresAt: DataTypes.DATE,
        active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        public: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'discount_codes' },
    );
  }
}
