import express, { type RequestHandler } from 'express';
import { z } from 'zod';
import { PARTNER_SIGNATURE_HEADER, type ShippingService } from '../../../domain/shipping';
import { AppError } from '../../../lib/errors';
import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import {
  CancelShipmentBody,
  Courier,
  LabelLink,
  LabelTokenParams,
  ListShipmentsQuery,
  PartnerEventAnswer,
  PartnerEventBody,
  RatesBody,
  Shipment,
  ShipmentIdParams,
  ShippingOrigin,
  ShippingRates,
  UpdateOriginBody,
  WaybillParams,
} from './schemas';

/** Partner events are small; a larger body is no event of theirs. */
const PARTNER_BODY_LIMIT = '64kb';

/**
 * The partner webhook's body reader, in place of the JSON parser: the signature is checked over the raw bytes
 * before anything is parsed, so an unsigned or forged request is refused without its body being looked at.
 */
function verifiedPartnerBody(shipping: ShippingService): RequestHandler {
  const raw = express.raw({ type: () => true, limit: PARTNER_BODY_LIMIT });
  return (req, res, next) => {
    raw(req, res, (err?: unknown) => {
      if (err) return next(err);
      const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      try {
        res.locals.partnerDelivery = shipping.verifyPartnerDelivery(bytes, req.get(PARTNER_SIGNATURE_HEADER));
        req.body = bytes.length > 0 ? JSON.parse(bytes.toString('utf8')) : {};
      } catch (failure) {
        return next(failure instanceof SyntaxError ? new AppError('VALIDATION_ERROR', 'The request body is not valid JSON') : failure);
      }
      next();
    });
  };
}

/**
 * Shipping (document 1): the merchant's routes (secret key, fulfillment module on: 409 fulfillment_module_disabled
 * otherwise), the label's signed download and the public tracking route (no key), and the fulfillment partner's
 * signed status webhook.
 */
export function shippingRouter(deps: RouteDeps) {
  const { shipping } = deps.services;
  const merchant = new ApiRouter('/v1/shipping', 'Shipping', deps)
    .add({
      method: 'get',
      path: '/origin',
      summary: 'The ship-from origin of this workspace environment (`configured: false` until set)',
      access: 'secret',
      module: 'fulfillment',
      response: ShippingOrigin,
      handler: async ({ auth }) => ({ data: await shipping.getOrigin(auth) }),
    })
    .add({
      method: 'patch',
      path: '/origin',
      summary: 'Set the ship-from origin: address, contactName and contactPhone required; other fields kept when left out, cleared by null',
      access: 'secret',
      module: 'fulfillment',
      body: UpdateOriginBody,
      response: ShippingOrigin,
      errors: ['PARTNER_UNAVAILABLE'],
      handler: async ({ auth, body }) => ({ data: await shipping.updateOrigin(auth, body) }),
    })
    .add({
      method: 'get',
      path: '/couriers',
      summary: 'Couriers available from the origin, with their services (instant, same-day, regular, cargo), logo, insurance and COD support',
      access: 'secret',
      module: 'fulfillment',
      response: z.array(Courier),
      errors: ['PARTNER_UNAVAILABLE'],
      handler: async ({ auth }) => ({ data: await shipping.couriers(auth) }),
    })
    .add({
      method: 'post',
      path: '/rates',
      summary: 'Quote rates for a parcel from the origin (or `origin`) to `destination`, cheapest first',
      access: 'secret',
      module: 'fulfillment',
      body: RatesBody,
      response: ShippingRates,
      errors: ['PARTNER_UNAVAILABLE'],
      handler: async ({ auth, body }) => ({ data: await shipping.rates(auth, body) }),
    })
    .add({
      method: 'get',
      path: '/shipments',
      summary: 'List shipments, newest first (`status` filter); shipments are created by checkout completion',
      access: 'secret',
      module: 'fulfillment',
      query: ListShipmentsQuery,
      response: z.array(Shipment),
      paginated: true,
      handler: async ({ auth, query }) => shipping.list(auth, query),
    })
    .add({
      method: 'get',
      path: '/shipments/:id',
      summary: 'Retrieve a shipment',
      access: 'secret',
      module: 'fulfillment',
      params: ShipmentIdParams,
      response: Shipment,
      handler: async ({ auth, params }) => ({ data: await shipping.retrieve(auth, params.id) }),
    })
    .add({
      method: 'post',
      path: '/shipments/:id/cancel',
      summary: 'Cancel a shipment before pickup (`reason`, default `Merchant cancelled`); 409 INVALID_STATE once picked up. No refund is made',
      access: 'secret',
      module: 'fulfillment',
      params: ShipmentIdParams,
      body: CancelShipmentBody,
      response: Shipment,
      errors: ['INVALID_STATE', 'PARTNER_UNAVAILABLE'],
      handler: async ({ auth, params, body }) => ({ data: await shipping.cancel(auth, params.id, body) }),
    })
    .add({
      method: 'get',
      path: '/shipments/:id/label',
      summary: 'A signed link to the label PDF (`{ url }`, valid 7 days); 404 LABEL_NOT_AVAILABLE until the label is made',
      access: 'secret',
      module: 'fulfillment',
      params: ShipmentIdParams,
      response: LabelLink,
      errors: ['LABEL_NOT_AVAILABLE'],
      handler: async ({ auth, params }) => ({ data: await shipping.label(auth, params.id) }),
    })
    .add({
      method: 'get',
      path: '/labels/:token',
      summary: 'Download a label PDF through its signed link (no key); 403 FORBIDDEN for a tampered or expired link',
      access: 'public',
      params: LabelTokenParams,
      produces: 'application/pdf',
      errors: ['FORBIDDEN', 'fulfillment_module_disabled'],
      handler: async ({ params }) => ({ file: await shipping.downloadLabel(params.token) }),
    })
    .add({
      method: 'get',
      path: '/track/:waybillId',
      summary: 'Always 410 MOVED: tracking moved to the fulfillment partner (follow a shipment’s trackingUrl)',
      access: 'public',
      params: WaybillParams,
      errors: ['MOVED'],
      handler: async () => shipping.track(),
    });

  // Its own body reader (the signature is over the raw bytes), so its own router over the same app-wide state.
  const partner = new ApiRouter('/v1/shipping', 'Shipping', { ...deps, parseJson: verifiedPartnerBody(shipping) }).add({
    method: 'post',
    path: '/partner-webhooks',
    summary: `The fulfillment partner's status events (order.status, order.waybill_id, order.price), signed with ${PARTNER_SIGNATURE_HEADER}: t=<unix seconds>,v1=<HMAC-SHA256 hex of "<t>.<raw body>">. 401 UNAUTHORIZED for a missing, forged, stale or replayed delivery; 404 for an unknown order_id (retry later)`,
    access: 'public',
    body: PartnerEventBody,
    response: PartnerEventAnswer,
    errors: ['UNAUTHORIZED', 'RESOURCE_NOT_FOUND'],
    handler: async ({ body, req }) => ({ data: await shipping.receivePartnerEvent(req.res!.locals.partnerDelivery, body) }),
  });

  const router = express.Router();
  router.use(merchant.router, partner.router);
  return router;
}
