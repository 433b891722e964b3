import type { Attributes } from 'sequelize';
import type { Account, ManualOrder, ManualOrderLine } from '../../db/models';

/** The stored address: the manual checkout's ShippingAddress body, trimmed, without its blank fields. */
type ShippingAddressView = { name: string; line1: string; city: string; country: string } & Record<string, string>;

/** A manual-order row from the model or from a raw list page (where bigint columns arrive as strings). */
export type ManualOrderRow = Omit<Attributes<ManualOrder>, 'seq' | 'subtotal' | 'discountAmount' | 'amount'> & {
  seq: number | string;
  subtotal: number | string;
  discountAmount: number | string;
  amount: number | string;
};

/** The greeting name of the buyer e-mails, which take at most 200 characters (a checkout name may have 255). */
export const buyerNameOf = (order: Pick<ManualOrder, 'customerName'>) => (order.customerName ? [...order.customerName].slice(0, 200).join('').trim() || undefined : undefined);

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** A line as the merchant sees it: the catalogue snapshot without the internal product flags. */
const toLineDto = (line: ManualOrderLine) => ({
  lineKey: line.lineKey,
  productId: line.productId,
  productName: line.productName,
  variantId: line.variantId,
  variantName: line.variantName,
  quantity: line.quantity,
  unitAmount: line.unitAmount,
  amount: line.amount,
});

/**
 * A list row (document 1: `customerName`/`customerEmail` in list and retrieve, the merchant-only fields in
 * retrieve only). Amounts in the smallest unit. The product fields are the first line's; `lines` has them all.
 */
export function toManualOrderListDto(row: ManualOrderRow) {
  return {
    id: row.id,
    accountId: row.accountId,
    orderNumber: row.orderNumber,
    productId: row.productId,
    productName: row.productName,
    variantId: row.variantId,
    variantName: row.variantName,
    quantity: row.quantity,
    lines: row.lines.map(toLineDto),
    subtotal: Number(row.subtotal),
    discountCode: row.discountCode,
    discountAmount: Number(row.discountAmount),
    discountApplied: row.discountApplied,
    amount: Number(row.amount),
    currency: row.currency,
    paymentStatus: row.paymentStatus,
    fulfillmentStatus: row.fulfillmentStatus,
    customerName: row.customerName,
    customerEmail: row.customerEmail,
    paymentMethod: row.paymentMethod,
    trackingCourier: row.trackingCourier,
    trackingNumber: row.trackingNumber,
    placedAt: iso(row.placedAt)!,
    paymentConfirmedAt: iso(row.paymentConfirmedAt),
    canceledAt: iso(row.canceledAt),
    shippedAt: iso(row.shippedAt),
    deliveredAt: iso(row.deliveredAt),
    metadata: row.metadata,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}

/** Retrieve and PATCH: every field, the merchant-only ones included. */
export function toManualOrderDto(row: ManualOrderRow) {
  return {
    ...toManualOrderListDto(row),
    customerPhone: row.customerPhone,
    shippingAddress: row.shippingAddress as ShippingAddressView | null,
    referralCode: row.referralCode,
    merchantPaymentNote: row.merchantPaymentNote,
    merchantShippingNote: row.merchantShippingNote,
  };
}

export type ManualOrderDto = ReturnType<typeof toManualOrderDto>;

/** The merchant's manual-payment settings (storefront settings) as a buyer is told them, with the order's reference. */
export function toPaymentInstructions(account: Account, order: Pick<ManualOrder, 'orderNumber'>) {
  return {
    bankName: account.manualBankName,
    accountNumber: account.manualAccountNumber,
    accountHolder: account.manualAccountHolder,
    instructions: account.manualPaymentInstructions,
    reference: order.orderNumber,
  };
}

/** The manual checkout's answer to the buyer: what was ordered, what to pay and how. */
export function toPlacedManualOrderDto(order: ManualOrder, account: Account) {
  return {
    id: order.id,
    orderNumber: order.orderNumber,
    // Every new order starts here (the columns' defaults).
    paymentStatus: 'awaiting_payment' as const,
    fulfillmentStatus: 'preparing' as const,
    paymentMethod: order.paymentMethod,
    lines: order.lines.map(({ productId, productName, variantId, variantName, quantity, unitAmount, amount }) => ({
      productId,
      productName,
      variantId,
      variantName,
      quantity,
      unitAmount,
      amount,
    })),
    subtotal: order.subtotal,
    discountCode: order.discountCode,
    discountAmount: order.discountAmount,
    amount: order.amount,
    currency: order.currency,
    paymentInstructions: toPaymentInstructions(account, order),
    placedAt: order.placedAt.toISOString(),
  };
}
