import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { bigintMoney, Environment, tenantColumns } from './common';
import type { ShippingAddress } from './checkout-session';
import type { Currency, ProductType } from './product';

export const MANUAL_PAYMENT_STATUSES = ['awaiting_payment', 'payment_confirmed', 'canceled'] as const;
export type ManualPaymentStatus = (typeof MANUAL_PAYMENT_STATUSES)[number];
/** In the order an order normally moves through them (docs/decisions/manual-orders.md). */
export const MANUAL_FULFILLMENT_STATUSES = ['preparing', 'ready_to_ship', 'shipped', 'delivered'] as const;
export type ManualFulfillmentStatus = (typeof MANUAL_FULFILLMENT_STATUSES)[number];
/** How the buyer means to pay (document 1: "values include"); the merchant's instructions cover each. */
export const MANUAL_PAYMENT_METHODS = ['bank_transfer', 'qris', 'whatsapp', 'cod'] as const;
export type ManualPaymentMethod = (typeof MANUAL_PAYMENT_METHODS)[number];

/** One priced line of a manual order, a catalogue snapshot at placement; amounts in the smallest unit. */
export interface ManualOrderLine {
  lineKey: string;
  productId: string;
  productName: string;
  productType: ProductType;
  licenseEnabled: boolean;
  variantId: string | null;
  variantName: string | null;
  quantity: number;
  unitAmount: number;
  amount: number;
}

/** A bank-transfer style order (document 1, Manual order); amounts in the currency's smallest unit. */
export class ManualOrder extends Model<InferAttributes<ManualOrder>, InferCreationAttributes<ManualOrder>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare seq: number;
  declare orderNumber: string;
  declare lines: ManualOrderLine[];
  declare productId: string;
  declare productName: string;
  declare variantId: string | null;
  declare variantName: string | null;
  declare quantity: number;
  declare currency: Currency;
  declare subtotal: number;
  declare discountId: CreationOptional<string | null>;
  declare discountCode: CreationOptional<string | null>;
  declare discountAmount: CreationOptional<number>;
  declare discountApplied: CreationOptional<boolean | null>;
  declare amount: number;
  declare paymentStatus: CreationOptional<ManualPaymentStatus>;
  declare fulfillmentStatus: CreationOptional<ManualFulfillmentStatus>;
  declare paymentMethod: ManualPaymentMethod;
  declare customerName: CreationOptional<string | null>;
  declare customerEmail: string;
  declare customerPhone: CreationOptional<string | null>;
  declare shippingAddress: CreationOptional<ShippingAddress | null>;
  declare referralCode: CreationOptional<string | null>;
  declare metadata: CreationOptional<Record<string, string>>;
  declare trackingCourier: CreationOptional<string | null>;
  declare trackingNumber: CreationOptional<string | null>;
  declare merchantPaymentNote: CreationOptional<string | null>;
  declare merchantShippingNote: CreationOptional<string | null>;
  declare placedAt: CreationOptional<Date>;
  declare paymentConfirmedAt: CreationOptional<Date | null>;
  declare canceledAt: CreationOptional<Date | null>;
  declare shippedAt: CreationOptional<Date | null>;
  declare deliveredAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    ManualOrder.init(
      {
        ...tenantColumns,
        seq: {
          type: DataTypes.BIGINT,
          allowNull: false,
          get(this: ManualOrder) {
            return Number(this.getDataValue('seq'));
          },
        },
        orderNumber: { type: DataTypes.TEXT, allowNull: false },
        lines: { type: DataTypes.JSONB, allowNull: false },
        productId: { type: DataTypes.TEXT, allowNull: false },
        productName: { type: DataTypes.TEXT, allowNull: false },
        variantId: DataTypes.TEXT,
        variantName: DataTypes.TEXT,
        quantity: { type: DataTypes.INTEGER, allowNull: false },
        currency: { type: DataTypes.TEXT, allowNull: false },
        subtotal: bigintMoney<ManualOrder>('subtotal'),
        discountId: DataTypes.TEXT,
        discountCode: DataTypes.TEXT,
        discountAmount: { ...bigintMoney<ManualOrder>('discountAmount'), defaultValue: 0 },
        discountApplied: DataTypes.BOOLEAN,
        amount: bigintMoney<ManualOrder>('amount'),
        paymentStatus: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'awaiting_payment' },
        fulfillmentStatus: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'preparing' },
        paymentMethod: { type: DataTypes.TEXT, allowNull: false },
        customerName: DataTypes.TEXT,
        customerEmail: { type: DataTypes.TEXT, allowNull: false },
        customerPhone: DataTypes.TEXT,
        shippingAddress: DataTypes.JSONB,
        referralCode: DataTypes.TEXT,
        metadata: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        trackingCourier: DataTypes.TEXT,
        trackingNumber: DataTypes.TEXT,
        merchantPaymentNote: DataTypes.TEXT,
        merchantShippingNote: DataTypes.TEXT,
        placedAt: DataTypes.DATE,
        paymentConfirmedAt: DataTypes.DATE,
        canceledAt: DataTypes.DATE,
        shippedAt: DataTypes.DATE,
        deliveredAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'manual_orders' },
    );
  }
}
