import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

export const DELIVERY_KINDS = ['download', 'license', 'shipment', 'manual'] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];

/** What a buyer received for one line of a completed checkout (or a confirmed manual order). */
export class Delivery extends Model<InferAttributes<Delivery>, InferCreationAttributes<Delivery>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare checkoutSessionId: CreationOptional<string | null>;
  declare manualOrderId: CreationOptional<string | null>;
  declare lineKey: string;
  declare productId: string;
  declare customerId: CreationOptional<string | null>;
  declare kind: DeliveryKind;
  declare fileId: CreationOptional<string | null>;
  declare downloadCount: CreationOptional<number | null>;
  declare downloadLimit: CreationOptional<number | null>;
  declare licenseKey: CreationOptional<string | null>;
  declare shipmentId: CreationOptional<string | null>;
  declare metadata: CreationOptional<Record<string, unknown>>;
  declare deliveredAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Delivery.init(
      {
        ...tenantColumns,
        checkoutSessionId: DataTypes.TEXT,
        manualOrderId: DataTypes.TEXT,
        lineKey: { type: DataTypes.TEXT, allowNull: false },
        productId: { type: DataTypes.TEXT, allowNull: false },
        customerId: DataTypes.TEXT,
        kind: { type: DataTypes.TEXT, allowNull: false },
        fileId: DataTypes.TEXT,
        downloadCount: DataTypes.INTEGER,
        downloadLimit: DataTypes.INTEGER,
        licenseKey: DataTypes.TEXT,
        shipmentId: DataTypes.TEXT,
        metadata: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        deliveredAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'deliveries', timestamps: false },
    );
  }
}
