import { MANUAL_FULFILLMENT_STATUSES, MANUAL_PAYMENT_STATUSES, type ManualFulfillmentStatus, type ManualOrderLine, type ManualPaymentStatus } from '../../db/models';
import { planManualOrderFulfillment } from '../../domain/manual-orders/fulfillment-plan';
import { formatOrderNumber, normaliseOrderNumber, orderNumberPrefix } from '../../domain/manual-orders/numbers';
import { planOrderUpdate } from '../../domain/manual-orders/transitions';
import { AppError } from '../../lib/errors';

// docs/decisions/manual-orders.md, "Transitions" and "Order numbers", on plain values: no order row is written.

const now = new Date('2026-03-01T10:00:00Z');
const order = (paymentStatus: ManualPaymentStatus, fulfillmentStatus: ManualFulfillmentStatus = 'preparing') => ({ orderNumber: 'WARUNG-0007', paymentStatus, fulfillmentStatus });

/** The 409 a refused move answers, or 'ok'. */
function outcome(run: () => unknown): 'ok' | AppError {
  try {
    run();
    return 'ok';
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

const pairs = <T extends string>(values: readonly T[]) => values.flatMap((from) => values.map((to) => [from, to] as const));

describe('payment moves', () => {
  it('are awaiting_payment → payment_confirmed or canceled, and nothing else (a repeat included)', () => {
    const allowed = pairs(MANUAL_PAYMENT_STATUSES)
      .filter(([from, to]) => outcome(() => planOrderUpdate(order(from), { paymentStatus: to }, now)) === 'ok')
      .map(([from, to]) => `${from}→${to}`);
    expect(allowed).toEqual(['awaiting_payment→payment_confirmed', 'awaiting_payment→canceled']);
  });

  it('refuse with 409 INVALID_STATE naming the order and its state as it is', () => {
    const refusal = outcome(() => planOrderUpdate(order('payment_confirmed', 'shipped'), { paymentStatus: 'canceled' }, now));
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: 'INVALID_STATE', details: { paymentStatus: 'payment_confirmed', fulfillmentStatus: 'shipped' } });
    expect((refusal as AppError).message).toMatch(/^Order WARUNG-0007 is payment_confirmed/);
  });

  it('stamp the confirmation (and say to mail, redeem and fulfil) or the cancellation', () => {
    expect(planOrderUpdate(order('awaiting_payment'), { paymentStatus: 'payment_confirmed' }, now)).toEqual({
      fields: { paymentStatus: 'payment_confirmed', paymentConfirmedAt: now },
      confirmed: true,
      shipped: false,
    });
    expect(planOrderUpdate(order('awaiting_payment'), { paymentStatus: 'canceled' }, now)).toEqual({
      fields: { paymentStatus: 'canceled', canceledAt: now },
      confirmed: false,
      shipped: false,
    });
  });
});

describe('fulfillment moves', () => {
  const moved = (payment: ManualPaymentStatus) =>
    pairs(MANUAL_FULFILLMENT_STATUSES)
      .filter(([from, to]) => from !== to && outcome(() => planOrderUpdate(order(payment, from), { fulfillmentStatus: to }, now)) === 'ok')
      .map(([from, to]) => `${from}→${to}`);

  it('go forward, skipping steps if need be; the only way back is ready_to_ship → preparing', () => {
    const expected = [
      'preparing→ready_to_ship',
      'preparing→shipped',
      'preparing→delivered',
      'ready_to_ship→preparing',
      'ready_to_ship→shipped',
      'ready_to_ship→delivered',
      'shipped→delivered',
    ];
    expect(moved('payment_confirmed')).toEqual(expected);
    // Cash on delivery ships before it is paid.
    expect(moved('awaiting_payment')).toEqual(expected);
  });

  it('never move on a canceled order, nor in the PATCH that cancels it', () => {
    expect(moved('canceled')).toEqual([]);
    const refusal = outcome(() => planOrderUpdate(order('awaiting_payment'), { paymentStatus: 'canceled', fulfillmentStatus: 'shipped' }, now));
    expect(refusal).toMatchObject({ code: 'INVALID_STATE', details: { paymentStatus: 'awaiting_payment', fulfillmentStatus: 'preparing' } });
  });

  it('treat the current status asked again as no move: nothing stamped or mailed, other fields still apply', () => {
    for (const status of MANUAL_FULFILLMENT_STATUSES) {
      expect(planOrderUpdate(order('payment_confirmed', status), { fulfillmentStatus: status, trackingNumber: 'JNE123' }, now)).toEqual({
        fields: { trackingNumber: 'JNE123' },
        confirmed: false,
        shipped: false,
      });
    }
    expect(outcome(() => planOrderUpdate(order('canceled', 'preparing'), { fulfillmentStatus: 'preparing' }, now))).toBe('ok');
  });

  it('stamp shippedAt (and say to mail) on → shipped and deliveredAt on → delivered; skipping shipped stamps no shippedAt', () => {
    expect(planOrderUpdate(order('payment_confirmed'), { fulfillmentStatus: 'shipped' }, now)).toEqual({
      fields: { fulfillmentStatus: 'shipped', shippedAt: now },
      confirmed: false,
      shipped: true,
    });
    expect(planOrderUpdate(order('payment_confirmed'), { fulfillmentStatus: 'delivered' }, now)).toEqual({
      fields: { fulfillmentStatus: 'delivered', deliveredAt: now },
      confirmed: false,
      shipped: false,
    });
  });

  it('may confirm and ship in one PATCH with the tracking fields', () => {
    expect(planOrderUpdate(order('awaiting_payment'), { paymentStatus: 'payment_confirmed', fulfillmentStatus: 'shipped', trackingCourier: 'JNE', trackingNumber: 'X1' }, now)).toEqual({
      fields: { paymentStatus: 'payment_confirmed', paymentConfirmedAt: now, fulfillmentStatus: 'shipped', shippedAt: now, trackingCourier: 'JNE', trackingNumber: 'X1' },
      confirmed: true,
      shipped: true,
    });
  });

  it('leave the merchant’s notes changeable on a canceled order, and clear them with null', () => {
    expect(planOrderUpdate(order('canceled'), { merchantPaymentNote: 'refunded by transfer', merchantShippingNote: null }, now).fields).toEqual({
      merchantPaymentNote: 'refunded by transfer',
      merchantShippingNote: null,
    });
  });
});

describe('order numbers', () => {
  it('take the slug’s first hyphen-separated word, upper-cased, at most 8 characters; ORDER without one', () => {
    expect(orderNumberPrefix('warung-budi')).toBe('WARUNG');
    expect(orderNumberPrefix('acme')).toBe('ACME');
    expect(orderNumberPrefix('supercalifragilistic-shop')).toBe('SUPERCAL');
    expect(orderNumberPrefix('-leading-hyphen')).toBe('LEADING');
    expect(orderNumberPrefix(null)).toBe('ORDER');
    expect(orderNumberPrefix('')).toBe('ORDER');
  });

  it('pad the sequence to at least 4 digits and never cut it', () => {
    expect([1, 9_999, 10_000].map((seq) => formatOrderNumber('WARUNG', seq))).toEqual(['WARUNG-0001', 'WARUNG-9999', 'WARUNG-10000']);
  });

  it('are looked up whatever the case and surrounding spaces the buyer typed', () => {
    expect(normaliseOrderNumber('  warung-0001 ')).toBe('WARUNG-0001');
  });
});

describe('the fulfillment plan of a confirmed order', () => {
  const line = (lineKey: string, productType: ManualOrderLine['productType'], licenseEnabled = false) => ({ lineKey, productType, licenseEnabled }) as ManualOrderLine;

  it('delivers digital and licence lines in order, then sends the receipt; physical lines are the merchant’s to ship', () => {
    expect(planManualOrderFulfillment([line('1', 'digital'), line('2', 'physical'), line('3', 'physical', true)])).toEqual(['delivery:1', 'delivery:3', 'email:receipt']);
  });

  it('is empty for an order of physical lines only (no receipt step either)', () => {
    expect(planManualOrderFulfillment([line('1', 'physical'), line('2', 'physical')])).toEqual([]);
  });
});
