import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

export type WebhookAttemptStatus = 'succeeded' | 'retry_scheduled' | 'failed';

/** One HTTP attempt of one (event, endpoint) delivery: the endpoint's delivery log. */
export class WebhookDeliveryAttempt extends Model<InferAttributes<WebhookDeliveryAttempt>, InferCreationAttributes<WebhookDeliveryAttempt>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare endpointId: string;
  declare eventId: string;
  declare eventType: string;
  declare attempt: number;
  /** The X-Service-Delivery-Id of the send this row records. */
  declare deliveryId: string;
  /** One per attempt of a delivery (the workflow's): a re-run of the attempt is recorded once. */
  declare attemptKey: string;
  declare url: string;
  declare status: WebhookAttemptStatus;
  declare statusCode: number | null;
  declare durationMs: number;
  declare error: string | null;
  declare scheduledAt: Date;
  declare nextAttemptAt: Date | null;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    WebhookDeliveryAttempt.init(
      {
        ...tenantColumns,
        endpointId: { type: DataTypes.TEXT, allowNull: false },
        eventId: { type: DataTypes.TEXT, allowNull: false },
        eventType: { type: DataTypes.TEXT, allowNull: false },
        attempt: { type: DataTypes.INTEGER, allowNull: false },
        deliveryId: { type: DataTypes.UUID, allowNull: false },
        attemptKey: { type: DataTypes.UUID, allowNull: false },
        url: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false },
        statusCode: DataTypes.INTEGER,
        durationMs: { type: DataTypes.INTEGER, allowNull: false },
        error: DataTypes.TEXT,
        scheduledAt: { type: DataTypes.DATE, allowNull: false },
        nextAttemptAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'webhook_delivery_attempts', updatedAt: false },
    );
  }
}
