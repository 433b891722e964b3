import { CreationOptional, DataTypes, InferAttributes, InferCreationAttributes, Model, Sequelize } from 'sequelize';
import { bigintMoney, Environment, tenantColumns } from './common';

export const CHECKOUT_STATUSES = ['open', 'pending_review', 'completed', 'expired', 'failed'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];
export const CHECKOUT_SOURCES = ['api', 'buy_now', 'cart', 'invoice'] as const;
export type CheckoutSource = (typeof CHECKOUT_SOURCES)[number];

/** The payment method values; `intl_wallet` is the international wallet (docs/decisions/checkout.md). */
export const PAYMENT_METHODS = ['qris', 'va', 'card', 'ewallet', 'intl_wallet'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** One priced line of a session, fixed at creation; `lineKey` keys its delivery and licence. */
export interface CheckoutLineItem {
  lineKey: string;
  productId: string | null;
  variantId: string | null;
  /** The product's name when the session was created. */
  name: string;
  /** The variant's name then; null without a variant, absent on sessions created before variants were sold. */
  variantName?: string | null;
  quantity: number;
  unitAmount: number;
  amount: number;
}

/** A postal address as the buyer gave it (validated by the storefront's schema). */
export type ShippingAddress = Record<string, string>;

/** A one-shot hosted payment (document 2); amounts in the currency's smallest unit. */
export class CheckoutSession extends Model<InferAttributes<CheckoutSession>, InferCreationAttributes<CheckoutSession>> {
  declare id: string;
  declare accountId: string;
  declare environment: Environment;
  declare status: CreationOptional<CheckoutStatus>;
  declare source: CheckoutSource;
  declare amount: number;
  declare currency: string;
  declare description: string;
  declare customerEmail: string;
  declare customerName: CreationOptional<string | null>;
  declare customerPhone: CreationOptional<string | null>;
  declare customerId: CreationOptional<string | null>;
  declare paymentMethods: PaymentMethod[];
  declare paymentMethod: CreationOptional<PaymentMethod | null>;
  declare successUrl: CreationOptional<string | null>;
  declare cancelUrl: CreationOptional<string | null>;
  declare lineItems: CreationOptional<CheckoutLineItem[]>;
  declare subtotal: number;
  declare discountId: CreationOptional<string | null>;
  declare discountCode: CreationOptional<string | null>;
  declare discountAmount: CreationOptional<number>;
  declare discountApplied: CreationOptional<boolean | null>;
  declare shippingAddress: CreationOptional<ShippingAddress | null>;
  declare referralCode: CreationOptional<string | null>;
  declare clickId: CreationOptional<string | null>;
  declare browserId: CreationOptional<string | null>;
  declare metadata: CreationOptional<Record<string, unknown>>;
  declare refundedAmount: CreationOptional<number>;
  declare expiresAt: Date;
  declare paidAt: CreationOptional<Date | null>;
  declare completedAt: CreationOptional<Date | null>;
  declare expiredAt: CreationOptional<Date | null>;
  declare fulfilledAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    CheckoutSession.init(
      {
        ...tenantColumns,
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'open' },
        source: { type: DataTypes.TEXT, allowNull: false },
        amount: bigintMoney<CheckoutSession>('amount'),
        currency: { type: DataTypes.TEXT, allowNull: false },
        description: { type: DataTypes.TEXT, allowNull: false },
        customerEmail: { type: DataTypes.TEXT, allowNull: false },
        customerName: DataTypes.TEXT,
        customerPhone: DataTypes.TEXT,
        customerId: DataTypes.TEXT,
        paymentMethods: { type: DataTypes.JSONB, allowNull: false },
        paymentMethod: DataTypes.TEXT,
        successUrl: DataTypes.TEXT,
        cancelUrl: DataTypes.TEXT,
        lineItems: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
        subtotal: bigintMoney<CheckoutSession>('subtotal'),
        discountId: DataTypes.TEXT,
        discountCode: DataTypes.TEXT,
        discountAmount: { ...bigintMoney<CheckoutSession>('discountAmount'), defaultValue: 0 },
        discountApplied: DataTypes.BOOLEAN,
        shippingAddress: DataTypes.JSONB,
        referralCode: DataTypes.TEXT,
        clickId: DataTypes.TEXT,
        browserId: DataTypes.TEXT,
        metadata: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        refundedAmount: { ...bigintMoney<CheckoutSession>('refundedAmount'), defaultValue: 0 },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        paidAt: DataTypes.DATE,
        completedAt: DataTypes.DATE,
        expiredAt: DataTypes.DATE,
        fulfilledAt: DataTypes.DATE,
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'checkout_sessions' },
    );
  }
}
