import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

/** The service's own endpoints (document 2): listed with merchant endpoints, managed only by the service. */
export const SYSTEM_ENDPOINT_KINDS = ['catalog_sync', 'product_mirror'] as const;
export type SystemEndpointKind = (typeof SYSTEM_ENDPOINT_KINDS)[number];

/** A registered HTTPS URL that receives signed event POSTs. The signing secret is stored sealed. */
export class WebhookEndpoint extends Model<InferAttributes<WebhookEndpoint>, InferCreationAttributes<WebhookEndpoint>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare url: string;
  declare events: string[];
  declare description: string | null;
  declare active: boolean;
  declare secretSealed: string;
  declare systemKind: CreationOptional<SystemEndpointKind | null>;
  declare consecutiveFailures: CreationOptional<number>;
  declare deliveryEpoch: CreationOptional<number>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    WebhookEndpoint.init(
      {
        ...tenantColumns,
        url: { type: DataTypes.TEXT, allowNull: false },
        events: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: [] },
        description: DataTypes.TEXT,
        active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        secretSealed: { type: DataTypes.TEXT, allowNull: false },
        systemKind: DataTypes.TEXT,
        consecutiveFailures: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        deliveryEpoch: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'webhook_endpoints' },
    );
  }
}
