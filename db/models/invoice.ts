import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { bigintMoney, Environment, tenantColumns } from './common';

export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'uncollectible', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export interface InvoiceLineItem {
  description: string;
  quantity: number;
  unitAmount: number;
  amount: number;
}

/** A billing record (document 2): one per subscription period or proration, or issued by hand. */
export class Invoice extends Model<InferAttributes<Invoice>, InferCreationAttributes<Invoice>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare customerId: CreationOptional<string | null>;
  declare subscriptionId: CreationOptional<string | null>;
  declare number: string;
  declare status: CreationOptional<InvoiceStatus>;
  declare currency: string;
  declare lineItems: InvoiceLineItem[];
  declare subtotal: number;
  declare taxAmount: number;
  declare amount: number;
  declare memo: CreationOptional<string | null>;
  declare periodStart: CreationOptional<Date | null>;
  declare periodEnd: CreationOptional<Date | null>;
  declare checkoutSessionId: CreationOptional<string | null>;
  declare issuedAt: Date;
  declare dueAt: CreationOptional<Date | null>;
  declare paidAt: CreationOptional<Date | null>;
  declare voidedAt: CreationOptional<Date | null>;
  declare metadata: CreationOptional<Record<string, string>>;
  /** Provider mode: the charge answered `pending`, followed at the next attempt instead of charging again. */
  declare providerChargeId: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Invoice.init(
      {
        ...tenantColumns,
        customerId: DataTypes.TEXT,
        subscriptionId: DataTypes.TEXT,
        number: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'draft' },
        currency: { type: DataTypes.TEXT, allowNull: false },
        lineItems: { type: DataTypes.JSONB, allowNull: false },
        subtotal: bigintMoney<Invoice>('subtotal'),
        taxAmount: bigintMoney<Invoice>('taxAmount'),
        amount: bigintMoney<Invoice>('amount'),
        memo: DataTypes.TEXT,
        periodStart: DataTypes.DATE,
        periodEnd: DataTypes.DATE,
        checkoutSessionId: DataTypes.TEXT,
        issuedAt: { type: DataTypes.DATE, allowNull: false },
        dueAt: DataTypes.DATE,
        paidAt: DataTypes.DATE,
        voidedAt: DataTypes.DATE,
        metadata: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        providerChargeId: DataTypes.TEXT,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'invoices' },
    );
  }
}
