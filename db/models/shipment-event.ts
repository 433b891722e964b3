import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import type { ShipmentStatus } from '../../lib/shipping/events';
import { Environment, tenantColumns } from './common';

export const SHIPMENT_EVENT_SOURCES = ['webhook', 'booking', 'local_partner'] as const;
export type ShipmentEventSource = (typeof SHIPMENT_EVENT_SOURCES)[number];

/** A partner event, by the partner's id, and what it did to its shipment: recorded once, so applied once. */
export class ShipmentEvent extends Model<InferAttributes<ShipmentEvent>, InferCreationAttributes<ShipmentEvent>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare shipmentId: string;
  declare source: ShipmentEventSource;
  declare type: string;
  declare partnerStatus: CreationOptional<string | null>;
  declare status: CreationOptional<ShipmentStatus | null>;
  declare outcome: 'applied' | 'ignored';
  declare receivedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    ShipmentEvent.init(
      {
        ...tenantColumns,
        shipmentId: { type: DataTypes.TEXT, allowNull: false },
        source: { type: DataTypes.TEXT, allowNull: false },
        type: { type: DataTypes.TEXT, allowNull: false },
        partnerStatus: DataTypes.TEXT,
        status: DataTypes.TEXT,
        outcome: { type: DataTypes.TEXT, allowNull: false },
        receivedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'shipment_events', timestamps: false },
    );
  }
}
