import { createHash, timingSafeEqual } from 'node:crypto';
import { Account, ManualOrder } from '../../db/models';
import { tenantWhere } from '../../db/tenancy';
import { notFound } from '../../lib/errors';
import type { AuthContext } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import { resolveStorefront } from '../storefront';
import { toPaymentInstructions } from './dto';
import { normaliseOrderNumber } from './numbers';

/** An e-mail address as the buyer may retype it: case and surrounding spaces do not matter, nor Unicode form. */
const normaliseEmail = (value: string) => value.normalize('NFC').trim().toLowerCase();
const digest = (value: string) => createHash('sha256').update(normaliseEmail(value)).digest();

/** Whether `given` is the order's e-mail, compared in constant time (of equal-length digests). */
export function sameEmail(given: string, stored: string): boolean {
  return timingSafeEqual(digest(given), digest(stored));
}

/**
 * The public order tracker (docs/decisions/manual-orders.md): order numbers are sequential and so guessable,
 * so anyone gets only the status summary; the order's contents, amounts, tracking and payment details need the
 * order's e-mail as well (`?email=`). A wrong e-mail gets exactly what no e-mail gets.
 */
export function createOrderTrackerService({ sequelize }: Pick<ServiceDeps, 'sequelize'>) {
  return {
    async track(slugOrHost: string, auth: AuthContext | undefined, orderNumber: string, email: string | undefined) {
      const { tenant } = await resolveStorefront(sequelize, slugOrHost, auth);
      const order = await ManualOrder.findOne({ where: { ...tenantWhere(tenant), orderNumber: normaliseOrderNumber(orderNumber) } });
      if (!order) throw notFound('Order');
      const summary = { orderNumber: order.orderNumber, paymentStatus: order.paymentStatus, fulfillmentStatus: order.fulfillmentStatus };
      // Compared even without an e-mail (against the empty string), so both answers cost the same.
      const verified = sameEmail(email ?? '', order.customerEmail) && email !== undefined;
      if (!verified) return { ...summary, verified: false as const, order: null };
      const account = await Account.findByPk(tenant.accountId);
      return {
        ...summary,
        verified: true as const,
        order: {
          customerName: order.customerName,
          lines: order.lines.map(({ productName, variantName, quantity, unitAmount, amount }) => ({ productName, variantName, quantity, unitAmount, amount })),
          subtotal: order.subtotal,
          discountCode: order.discountCode,
          discountAmount: order.discountAmount,
          amount: order.amount,
          currency: order.currency,
          paymentMethod: order.paymentMethod,
          // Still to pay: how (the merchant's settings as they are now); afterwards the buyer no longer needs them.
          paymentInstructions: order.paymentStatus === 'awaiting_payment' && account ? toPaymentInstructions(account, order) : null,
          trackingCourier: order.trackingCourier,
          trackingNumber: order.trackingNumber,
          placedAt: order.placedAt.toISOString(),
          paymentConfirmedAt: order.paymentConfirmedAt?.toISOString() ?? null,
          canceledAt: order.canceledAt?.toISOString() ?? null,
          shippedAt: order.shippedAt?.toISOString() ?? null,
          deliveredAt: order.deliveredAt?.toISOString() ?? null,
        },
      };
    },
  };
}

export type OrderTrackerService = ReturnType<typeof createOrderTrackerService>;
