import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { PLANS, type Plan } from '../../lib/plans';

export { PLANS, type Plan };

/** A workspace. Not split by environment: test and live data both hang off it. */
export class Account extends Model<InferAttributes<Account>, InferCreationAttributes<Account>> {
  declare id: string;
  declare name: string;
  declare slug: string | null;
  declare description: CreationOptional<string | null>;
  declare brandColor: CreationOptional<string | null>;
  declare brandLogo: CreationOptional<string | null>;
  declare brandBanner: CreationOptional<string | null>;
  declare metaPixelId: CreationOptional<string | null>;
  declare googleTagId: CreationOptional<string | null>;
  declare tiktokPixelId: CreationOptional<string | null>;
  declare manualBankName: CreationOptional<string | null>;
  declare manualAccountNumber: CreationOptional<string | null>;
  declare manualAccountHolder: CreationOptional<string | null>;
  declare manualPaymentInstructions: CreationOptional<string | null>;
  declare manualQrisImageUrl: CreationOptional<string | null>;
  declare manualQrisInstructions: CreationOptional<string | null>;
  declare manualEwalletInstructions: CreationOptional<string | null>;
  declare manualIntlWalletInstructions: CreationOptional<string | null>;
  declare plan: CreationOptional<Plan>;
  declare fulfillmentEnabled: CreationOptional<boolean>;
  declare paymentEnabled: CreationOptional<boolean>;
  /** Tax its invoices add, in basis points of the subtotal (docs/decisions/billing.md). */
  declare invoiceTaxRateBps: CreationOptional<number>;
  /** What dunning does after the final failed retry: cancel the subscription or leave it `unpaid`. */
  declare dunningFinalAction: CreationOptional<'cancel' | 'leave_unpaid'>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Account.init(
      {
        id: { type: DataTypes.TEXT, primaryKey: true },
        name: { type: DataTypes.TEXT, allowNull: false },
        slug: { type: DataTypes.TEXT, allowNull: true },
        description: DataTypes.TEXT,
        brandColor: DataTypes.TEXT,
        brandLogo: DataTypes.TEXT,
        brandBanner: DataTypes.TEXT,
        metaPixelId: DataTypes.TEXT,
        googleTagId: DataTypes.TEXT,
        tiktokPixelId: DataTypes.TEXT,
        manualBankName: DataTypes.TEXT,
        manualAccountNumber: DataTypes.TEXT,
        manualAccountHolder: DataTypes.TEXT,
        manualPaymentInstructions: DataTypes.TEXT,
        manualQrisImageUrl: DataTypes.TEXT,
        manualQrisInstructions: DataTypes.TEXT,
        manualEwalletInstructions: DataTypes.TEXT,
        manualIntlWalletInstructions: DataTypes.TEXT,
        plan: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'free' },
        fulfillmentEnabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        paymentEnabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        invoiceTaxRateBps: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        dunningFinalAction: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'cancel' },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'accounts' },
    );
  }
}
