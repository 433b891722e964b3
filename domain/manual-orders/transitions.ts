import type { Attributes } from 'sequelize';
import type { ManualFulfillmentStatus, ManualOrder, ManualPaymentStatus } from '../../db/models';
import { AppError } from '../../lib/errors';
import type { UpdateManualOrderBody } from './inputs';

/**
 * The moves a merchant's PATCH may make (document 1, States; docs/decisions/manual-orders.md):
 *
 * - payment: `awaiting_payment` → `payment_confirmed` or `canceled`, nothing else. `canceled` is terminal;
 *   a confirmed payment cannot be canceled (refunds happen outside the API).
 * - fulfillment: forward in the order preparing → ready_to_ship → shipped → delivered, steps may be skipped;
 *   the only backward move is ready_to_ship → preparing (the parcel has not left). `shipped` and `delivered`
 *   are facts the buyer was told, so nothing goes back from them. A canceled order's fulfillment does not move.
 * - a payment move to the status the order already has is refused: a repeated confirmation must not look as if
 *   it happened (and mailed the buyer) twice. A fulfillment status equal to the current one is no move at all
 *   (document 1: PATCH sets "that value"): a `200` that stamps and mails nothing.
 *
 * Every refusal is `409 INVALID_STATE` naming the current state (in the message and in `details`).
 */
const FULFILLMENT_RANK: Record<ManualFulfillmentStatus, number> = { preparing: 0, ready_to_ship: 1, shipped: 2, delivered: 3 };
const BACKWARD_ALLOWED: ReadonlySet<string> = new Set(['ready_to_ship>preparing']);

export interface OrderUpdatePlan {
  fields: Partial<Attributes<ManualOrder>>;
  /** awaiting_payment → payment_confirmed: mail the buyer, redeem the code, start fulfillment. */
  confirmed: boolean;
  /** → shipped: mail the buyer the shipping notification. */
  shipped: boolean;
}

type OrderState = Pick<ManualOrder, 'orderNumber' | 'paymentStatus' | 'fulfillmentStatus'>;

function refused(order: OrderState, message: string): AppError {
  return new AppError('INVALID_STATE', `Order ${order.orderNumber} ${message}`, {
    paymentStatus: order.paymentStatus,
    fulfillmentStatus: order.fulfillmentStatus,
  });
}

function paymentMove(order: OrderState, to: ManualPaymentStatus): void {
  const from: ManualPaymentStatus = order.paymentStatus;
  if (from === to) throw refused(order, `is already ${from}`);
  if (from === 'canceled') throw refused(order, 'is canceled, which is final: its payment status cannot change');
  if (from === 'payment_confirmed') {
    throw refused(order, to === 'canceled' ? 'is payment_confirmed: a confirmed order cannot be canceled (refund the buyer outside the API)' : 'is payment_confirmed: a confirmed payment cannot be undone');
  }
  // from awaiting_payment, the one remaining target that is not a move is awaiting_payment itself, refused above.
}

function fulfillmentMove(order: OrderState, paymentAfter: ManualPaymentStatus, to: ManualFulfillmentStatus): void {
  const from: ManualFulfillmentStatus = order.fulfillmentStatus;
  if (paymentAfter === 'canceled') throw refused(order, `is ${order.paymentStatus === 'canceled' ? 'canceled' : 'being canceled'}: a canceled order's fulfillment does not move`);
  if (FULFILLMENT_RANK[to] < FULFILLMENT_RANK[from] && !BACKWARD_ALLOWED.has(`${from}>${to}`)) {
    throw refused(order, `is ${from}: it cannot go back to ${to} (only ready_to_ship may go back to preparing)`);
  }
}

/** What a PATCH changes on `order`, or the first refused move. Checks everything before anything is written. */
export function planOrderUpdate(order: OrderState, input: UpdateManualOrderBody, now: Date): OrderUpdatePlan {
  const fields: OrderUpdatePlan['fields'] = {};
  let confirmed = false;
  let shipped = false;

  if (input.paymentStatus !== undefined) {
    paymentMove(order, input.paymentStatus);
    fields.paymentStatus = input.paymentStatus;
    if (input.paymentStatus === 'payment_confirmed') {
      fields.paymentConfirmedAt = now;
      confirmed = true;
    } else {
      fields.canceledAt = now;
    }
  }
  if (input.fulfillmentStatus !== undefined && input.fulfillmentStatus !== order.fulfillmentStatus) {
    fulfillmentMove(order, fields.paymentStatus ?? order.paymentStatus, input.fulfillmentStatus);
    fields.fulfillmentStatus = input.fulfillmentStatus;
    if (input.fulfillmentStatus === 'shipped') {
      fields.shippedAt = now;
      shipped = true;
    }
    if (input.fulfillmentStatus === 'delivered') fields.deliveredAt = now;
  }
  for (const key of ['trackingCourier', 'trackingNumber', 'merchantPaymentNote', 'merchantShippingNote'] as const) {
    if (input[key] !== undefined) fields[key] = input[key];
  }
  return { fields, confirmed, shipped };
}
