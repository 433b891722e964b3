import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { Environment, tenantColumns } from './common';

export type EmailStatus = 'pending' | 'sent' | 'failed';

/** One buyer e-mail: the sent-log row its delivery workflow reads and settles (migration 0013). */
export class EmailMessage extends Model<InferAttributes<EmailMessage>, InferCreationAttributes<EmailMessage>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare kind: string;
  /** Unique per workspace environment: the same business message (receipt of cs_…) is queued once. */
  declare businessKey: string;
  declare messageId: string;
  declare toAddress: string;
  declare subject: string;
  /** Sealed `{ html, text }`; null once sent or given up. */
  declare body: string | null;
  declare status: CreationOptional<EmailStatus>;
  declare attempts: CreationOptional<number>;
  declare lastError: CreationOptional<string | null>;
  declare sendingUntil: CreationOptional<Date | null>;
  declare sentAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    EmailMessage.init(
      {
        ...tenantColumns,
        kind: { type: DataTypes.TEXT, allowNull: false },
        businessKey: { type: DataTypes.TEXT, allowNull: false },
        messageId: { type: DataTypes.TEXT, allowNull: false },
        toAddress: { type: DataTypes.TEXT, allowNull: false },
        subject: { type: DataTypes.TEXT, allowNull: false },
        body: DataTypes.TEXT,
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'pending' },
        attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        lastError: DataTypes.TEXT,
        sendingUntil: DataTypes.DATE,
        sentAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'email_messages' },
    );
  }
}
