import type { Request, Response } from 'express';
import { MANUAL_FULFILLMENT_STATUSES, MANUAL_PAYMENT_STATUSES, type ManualFulfillmentStatus, type ManualPaymentStatus } from '../../../db/models/manual-order';
import { UpdateManualOrderBody } from '../../../domain/manual-orders';
import { AppError } from '../../../lib/errors';
import { engine } from '../../pages/shared/render';
import { formField, identityOf } from '../session';
import { fieldErrorsOf, oneOf, queryText, type FieldErrors, type FormValues, type PageKit } from './kit';
import { MANUAL_ORDER, MANUAL_ORDERS } from './manual-orders-templates';

const BODIES = { list: engine.compile(MANUAL_ORDERS), order: engine.compile(MANUAL_ORDER) };

export const MANUAL_ORDER_NOTICES: Record<string, string> = {
  'order-confirmed': 'Payment confirmed. The buyer is e-mailed and digital items are on their way.',
  'order-canceled': 'Order canceled. What it held is released.',
  'fulfillment-saved': 'Fulfillment saved.',
  'notes-saved': 'Notes saved.',
};

/** Document 1, Limits: manual orders page by 25. */
const PAGE_SIZE = 25;

const paymentTone = (status: ManualPaymentStatus) => (status === 'payment_confirmed' ? 'good' : status === 'canceled' ? 'bad' : 'wait');
const fulfillmentTone = (status: ManualFulfillmentStatus) => (status === 'delivered' ? 'good' : status === 'shipped' ? 'good' : 'wait');

/** The three forms of an order's page, each one PATCH /v1/manual-orders/:id body, named by its fields. */
const FORMS = {
  payment: ['paymentStatus'],
  fulfillment: ['fulfillmentStatus', 'trackingCourier', 'trackingNumber'],
  notes: ['merchantPaymentNote', 'merchantShippingNote'],
} as const;

/**
 * Manual orders: the list (with document 1's two filters) and an order with its moves. Every move is
 * manualOrders.update with a PATCH /v1/manual-orders/:id body through its own schema; the transitions are the
 * service's, and its refusal (409, naming the current state) is shown beside the field that asked for the move.
 */
export function mountManualOrderPages({ router, services, page, post }: PageKit): void {
  router.get('/manual-orders', async (req, res) => {
    const { auth } = identityOf(req);
    const paymentStatus = oneOf(MANUAL_PAYMENT_STATUSES, req.query.paymentStatus);
    const fulfillmentStatus = oneOf(MANUAL_FULFILLMENT_STATUSES, req.query.fulfillmentStatus);
    const list = await services.manualOrders.list(auth, { limit: PAGE_SIZE, cursor: queryText(req, 'cursor'), paymentStatus, fulfillmentStatus });
    const query = new URLSearchParams({ ...(paymentStatus ? { paymentStatus } : {}), ...(fulfillmentStatus ? { fulfillmentStatus } : {}) }).toString();
    page(req, res, {
      status: 200,
      title: 'Manual orders',
      active: 'manual-orders',
      body: BODIES.list,
      context: {
        orders: list.data.map((o) => ({ ...o, paymentTone: paymentTone(o.paymentStatus), fulfillmentTone: fulfillmentTone(o.fulfillmentStatus) })),
        paymentStatuses: MANUAL_PAYMENT_STATUSES,
        fulfillmentStatuses: MANUAL_FULFILLMENT_STATUSES,
        paymentFilter: paymentStatus,
        fulfillmentFilter: fulfillmentStatus,
        filtered: Boolean(paymentStatus ?? fulfillmentStatus),
        query: query ? `${query}&` : '',
        nextCursor: list.nextCursor,
      },
    });
  });

  const orderPage = async (req: Request, res: Response, state: { status: number; form?: FormValues; errors?: FieldErrors }) => {
    const order = await services.manualOrders.retrieve(identityOf(req).auth, String(req.params.id));
    const address = order.shippingAddress;
    const moves: [string, string | null][] = [
      ['Placed', order.placedAt],
      ['Payment confirmed', order.paymentConfirmedAt],
      ['Canceled', order.canceledAt],
      ['Shipped', order.shippedAt],
      ['Delivered', order.deliveredAt],
    ];
    page(req, res, {
      status: state.status,
      title: `Order ${order.orderNumber}`,
      active: 'manual-orders',
      body: BODIES.order,
      context: {
        order,
        paymentTone: paymentTone(order.paymentStatus),
        fulfillmentTone: fulfillmentTone(order.fulfillmentStatus),
        addressLines: address ? [address.name, address.line1, address.line2, [address.postalCode, address.city].filter(Boolean).join(' '), address.region, address.country, address.phone].filter(Boolean) : [],
        timeline: moves
          .filter((move): move is [string, string] => move[1] !== null)
          .map(([what, at]) => ({ what, at }))
          .sort((a, b) => a.at.localeCompare(b.at)),
        // Which forms the page offers; the manual-orders service decides whether a move is allowed.
        payable: order.paymentStatus === 'awaiting_payment',
        canceled: order.paymentStatus === 'canceled',
        fulfillmentStatuses: MANUAL_FULFILLMENT_STATUSES,
        form: {
          fulfillmentStatus: order.fulfillmentStatus,
          trackingCourier: order.trackingCourier ?? '',
          trackingNumber: order.trackingNumber ?? '',
          merchantPaymentNote: order.merchantPaymentNote ?? '',
          merchantShippingNote: order.merchantShippingNote ?? '',
          ...state.form,
        },
        errors: state.errors ?? {},
      },
    });
  };

  router.get('/manual-orders/:id', (req, res) => orderPage(req, res, { status: 200 }));

  for (const [name, fields] of Object.entries(FORMS)) {
    post(`/manual-orders/:id/${name}`, async (req, res) => {
      const id = String(req.params.id);
      const form = Object.fromEntries(fields.map((field) => [field, formField(req, field) ?? ''])) as FormValues;
      const parsed = UpdateManualOrderBody.safeParse(form);
      if (!parsed.success) return orderPage(req, res, { status: 400, form, errors: fieldErrorsOf(parsed.error) });
      try {
        await services.manualOrders.update(identityOf(req).auth, id, parsed.data);
      } catch (err) {
        // A refused move names the order's current state; it is shown beside the field that asked for it.
        if (err instanceof AppError && err.code === 'INVALID_STATE') return orderPage(req, res, { status: 409, form, errors: { [fields[0]]: err.message } });
        throw err;
      }
      const notice = name === 'payment' ? (parsed.data.paymentStatus === 'canceled' ? 'order-canceled' : 'order-confirmed') : `${name}-saved`;
      res.redirect(303, `${req.baseUrl}/manual-orders/${id}?notice=${notice}`);
    });
  }
}
