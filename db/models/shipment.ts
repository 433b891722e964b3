import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import type { ShipmentStatus } from '../../lib/shipping/events';
import type { ParcelItem, PartnerName, Place } from '../../lib/shipping/types';
import { bigintMoney, Environment, tenantColumns } from './common';

/** One parcel of a completed checkout line, booked with a shipping partner (document 1, Shipment). */
export class Shipment extends Model<InferAttributes<Shipment>, InferCreationAttributes<Shipment>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare status: CreationOptional<ShipmentStatus>;
  declare courierCode: string;
  declare courierServiceCode: string;
  declare insurance: CreationOptional<boolean>;
  declare partner: CreationOptional<PartnerName | null>;
  declare partnerOrderId: CreationOptional<string | null>;
  declare waybillId: CreationOptional<string | null>;
  declare trackingUrl: CreationOptional<string | null>;
  declare price: CreationOptional<number | null>;
  declare currency: CreationOptional<string>;
  declare origin: CreationOptional<Place | null>;
  declare destination: Place;
  declare items: ParcelItem[];
  declare externalSource: string;
  declare externalRef: string;
  declare checkoutSessionId: CreationOptional<string | null>;
  declare lineKey: CreationOptional<string | null>;
  declare labelKey: CreationOptional<string | null>;
  declare labelCreatedAt: CreationOptional<Date | null>;
  declare cancellationReason: CreationOptional<string | null>;
  declare cancelledAt: CreationOptional<Date | null>;
  declare bookedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Shipment.init(
      {
        ...tenantColumns,
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'pending' },
        courierCode: { type: DataTypes.TEXT, allowNull: false },
        courierServiceCode: { type: DataTypes.TEXT, allowNull: false },
        insurance: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        partner: DataTypes.TEXT,
        partnerOrderId: DataTypes.TEXT,
        waybillId: DataTypes.TEXT,
        trackingUrl: DataTypes.TEXT,
        price: bigintMoney<Shipment>('price', true),
        currency: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'IDR' },
        origin: DataTypes.JSONB,
        destination: { type: DataTypes.JSONB, allowNull: false },
        items: { type: DataTypes.JSONB, allowNull: false },
        externalSource: { type: DataTypes.TEXT, allowNull: false },
        externalRef: { type: DataTypes.TEXT, allowNull: false },
        checkoutSessionId: DataTypes.TEXT,
        lineKey: DataTypes.TEXT,
        labelKey: DataTypes.TEXT,
        labelCreatedAt: DataTypes.DATE,
        cancellationReason: DataTypes.TEXT,
        cancelledAt: DataTypes.DATE,
        bookedAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'shipments' },
    );
  }
}
