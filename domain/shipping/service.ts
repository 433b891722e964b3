import type { Readable } from 'node:stream';
import { Account, Shipment, ShippingOrigin } from '../../db/models';
import { listPage, type PageRequest } from '../../db/pagination';
import { recordWebhookReceipt } from '../../db/shipping';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { requireEncryptionKey } from '../../lib/config';
import { AppError, invalidState, notFound, validationError } from '../../lib/errors';
import { createShippingPartners, type Courier, type Place, type Rate } from '../../lib/shipping';
import { CANCELLABLE, type ShipmentStatus } from '../../lib/shipping/events';
import { verifyWebhookSignature } from '../../lib/webhooks/signature';
import type { AuthContext } from '../auth-context';
import { assertModuleEnabled } from '../modules';
import type { ServiceDeps } from '../service-deps';
import { placeOf, toOriginDto, toShipmentDto, type OriginDto, type ShipmentDto } from './dto';
import { applyPartnerEvent, type EventOutcome } from './events';
import { DEFAULT_CANCEL_REASON, type CancelShipmentBody, type PartnerEventBody, type RatePlace, type RatesBody, type UpdateOriginBody } from './inputs';
import { createLabelLinks } from './labels';
import { partnerCall } from './partner-errors';

/** The partner's webhook signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, as document 2 signs ours. */
export const PARTNER_SIGNATURE_HEADER = 'X-Partner-Signature';

/** Why a partner webhook was refused, in `error.details.reason` (docs/decisions/shipping.md, "Partner webhooks"). */
export type PartnerWebhookRefusal = 'not_configured' | 'missing_header' | 'malformed_header' | 'timestamp_outside_tolerance' | 'signature_mismatch' | 'replayed';

const refusedWebhook = (reason: PartnerWebhookRefusal, message: string) => new AppError('UNAUTHORIZED', message, { reason });

/** A verified delivery: its signature (the replay key) and when it was signed. */
export interface VerifiedDelivery {
  signature: string;
  signedAt: Date;
}

export interface ShipmentListQuery extends PageRequest {
  status?: ShipmentStatus;
}

export interface PartnerEventAnswer {
  received: true;
  eventId: string;
  /** applied: it changed the shipment; ignored: nothing to change (out of order, unknown status); duplicate: seen before. */
  outcome: EventOutcome;
}

/** What the public label route streams. */
export interface LabelFile {
  body: Readable;
  size: number;
  fileName: string;
  mimeType: string;
}

const dropNulls = (place: RatePlace): Place => Object.fromEntries(Object.entries(place).filter(([, v]) => v !== null && v !== undefined)) as Place;

/**
 * Shipping (document 1): the origin, couriers and rates from the environment's partner, the merchant's view of
 * shipments (list, retrieve, cancel, label), the label's signed download, and the partner's signed status
 * webhooks. Every keyed route sits behind the fulfillment module (api/endpoint.ts); shipments themselves are
 * created only by checkout completion (create.ts). No events: the partner emits shipment lifecycle events.
 */
export function createShippingService({ sequelize, config, storage, starters, logger }: Pick<ServiceDeps, 'sequelize' | 'config' | 'storage' | 'starters' | 'logger'>) {
  const partners = createShippingPartners(config);
  const links = createLabelLinks({ secret: requireEncryptionKey(config), publicBaseUrl: config.PUBLIC_BASE_URL });

  const catalogue = (tenant: Tenant): Promise<Courier[]> => partnerCall(() => partners.forEnvironment(tenant.environment).couriers());
  const originRow = (tenant: Tenant) => ShippingOrigin.findOne({ where: tenantWhere(tenant) });

  /** Refuses codes the partner does not know, naming each by its position in `field`. */
  function assertKnown(codes: string[], couriers: Courier[], field: string): void {
    const known = new Set(couriers.map((c) => c.code));
    const unknown = codes.map((code, i) => ({ code, i })).filter(({ code }) => !known.has(code));
    if (unknown.length > 0) {
      throw validationError(
        `${field}.${unknown[0]!.i}: unknown courier ${unknown[0]!.code}`,
        unknown.map(({ code, i }) => ({ field: `${field}.${i}`, message: `unknown courier ${code}; GET /v1/shipping/couriers lists them` })),
      );
    }
  }

  async function ownShipment(auth: AuthContext, id: string): Promise<Shipment> {
    const row = await Shipment.findOne({ where: { id, ...tenantWhere(auth) } });
    if (!row) throw notFound('Shipment');
    return row;
  }

  return {
    partners,

    async getOrigin(auth: AuthContext): Promise<OriginDto> {
      return toOriginDto(auth.accountId, await originRow(auth));
    },

    /** Fields left out keep their value; `null` clears an optional one; `couriers` are checked against the partner's list. */
    async updateOrigin(auth: AuthContext, body: UpdateOriginBody): Promise<OriginDto> {
      if (body.couriers && body.couriers.length > 0) assertKnown(body.couriers, await catalogue(auth), 'couriers');
      const scope = tenantWhere(auth);
      const row = await sequelize.transaction(async (tx) => {
        const current = await ShippingOrigin.findOne({ where: scope, lock: tx.LOCK.UPDATE, transaction: tx });
        if (!current) return ShippingOrigin.create({ ...scope, ...body, couriers: body.couriers ?? [] }, { transaction: tx });
        // A PATCH of the same values still answers the current row; `changed()` decides whether updatedAt moves.
        return current.update(body, { transaction: tx });
      });
      return toOriginDto(auth.accountId, row);
    },

    /** The partner's couriers, narrowed to the origin's list when it has one. */
    async couriers(auth: AuthContext): Promise<Courier[]> {
      const [couriers, origin] = await Promise.all([catalogue(auth), originRow(auth)]);
      return origin && origin.couriers.length > 0 ? couriers.filter((c) => origin.couriers.includes(c.code)) : couriers;
    },

    async rates(auth: AuthContext, body: RatesBody): Promise<{ pricing: Rate[] }> {
      const [couriers, stored] = await Promise.all([catalogue(auth), originRow(auth)]);
      const origin = body.origin ? dropNulls(body.origin) : stored ? placeOf(stored) : null;
      if (!origin) {
        throw validationError('origin: no ship-from origin is set: send origin, or set one with PATCH /v1/shipping/origin', [
          { field: 'origin', message: 'required while the workspace has no origin (PATCH /v1/shipping/origin)' },
        ]);
      }
      if (body.couriers) assertKnown(body.couriers, couriers, 'couriers');
      const selected = body.couriers ?? (stored && stored.couriers.length > 0 ? stored.couriers : couriers.map((c) => c.code));
      const pricing = await partnerCall(() =>
        partners.forEnvironment(auth.environment).rates({
          origin,
          destination: dropNulls(body.destination),
          items: body.items.map((item) => ({ ...item, value: item.value ?? 0, quantity: item.quantity ?? 1 })),
          couriers: selected,
          insurance: body.insurance ?? false,
        }),
      );
      return { pricing };
    },

    list(auth: AuthContext, query: ShipmentListQuery) {
      const now = Date.now();
      return listPage(sequelize, Shipment, {
        tenant: auth,
        where: query.status === undefined ? {} : { status: query.status },
        page: query,
        idPrefix: 'shp',
        toDto: (row) => toShipmentDto(Shipment.build(row, { raw: true, isNewRecord: false }), links, now),
      });
    },

    async retrieve(auth: AuthContext, id: string): Promise<ShipmentDto> {
      return toShipmentDto(await ownShipment(auth, id), links);
    },

    /**
     * Cancels before pickup (`pending` or `confirmed`), telling the partner first while holding the row lock, so
     * a pickup reported meanwhile waits and then finds the shipment canceled. After pickup: 409 INVALID_STATE.
     * No refund is made (document 1).
     */
    async cancel(auth: AuthContext, id: string, body: CancelShipmentBody): Promise<ShipmentDto> {
      const reason = body.reason ?? DEFAULT_CANCEL_REASON;
      const row = await sequelize.transaction(async (tx) => {
        const shipment = await Shipment.findOne({ where: { id, ...tenantWhere(auth) }, lock: tx.LOCK.UPDATE, transaction: tx });
        if (!shipment) throw notFound('Shipment');
        if (!CANCELLABLE.includes(shipment.status)) {
          throw invalidState(`This shipment is ${shipment.status}: a shipment can be cancelled only before pickup (pending or confirmed)`);
        }
        if (shipment.partner && shipment.partnerOrderId) {
          const { partner, partnerOrderId } = shipment;
          await partnerCall(
            () => partners.named(partner, auth.environment).cancelShipment(partnerOrderId, reason),
            (err) => invalidState(`The shipping partner refused the cancellation: ${err.message}`),
          );
        }
        return shipment.update({ status: 'cancelled', cancelledAt: new Date(), cancellationReason: reason }, { transaction: tx });
      });
      return toShipmentDto(row, links);
    },

    /** The label's signed link, once rendered: labels are made after booking, so a new shipment's is `404 LABEL_NOT_AVAILABLE`. */
    async label(auth: AuthContext, id: string): Promise<{ url: string; expiresAt: string }> {
      const shipment = await ownShipment(auth, id);
      if (!shipment.labelKey) {
        throw new AppError('LABEL_NOT_AVAILABLE', shipment.status === 'cancelled' ? 'This shipment was cancelled before its label was made' : 'The label is not ready yet: it is made once the shipment is booked; try again shortly');
      }
      const link = links.sign(shipment.id);
      return { url: link.url, expiresAt: link.expiresAt.toISOString() };
    },

    /** Serves a signed label link (no key: the link is the credential); the workspace's module must be on. */
    async downloadLabel(token: string): Promise<LabelFile> {
      const verdict = links.verify(token);
      if (verdict === 'invalid') throw new AppError('FORBIDDEN', 'This label link is not valid', { reason: 'invalid_signature' });
      if (verdict === 'expired') throw new AppError('FORBIDDEN', 'This label link has expired', { reason: 'expired' });
      const shipment = await Shipment.findByPk(verdict.shipmentId);
      if (!shipment?.labelKey) throw notFound('Label');
      const account = await Account.findByPk(shipment.accountId, { attributes: ['id', 'fulfillmentEnabled'] });
      assertModuleEnabled({ fulfillmentEnabled: account?.fulfillmentEnabled ?? false }, 'fulfillment');
      const blob = await storage.open(shipment.labelKey);
      if (!blob) throw notFound('Label');
      return { ...blob, fileName: `label-${shipment.waybillId ?? shipment.id}.pdf`, mimeType: 'application/pdf' };
    },

    /** Public tracking moved to the fulfillment partner (document 1): always 410. */
    track(): never {
      throw new AppError('MOVED', 'Tracking moved to the fulfillment partner: follow the shipment’s trackingUrl');
    },

    /** Checks a partner webhook exactly as received, before its body is parsed; refuses with the reason. */
    verifyPartnerDelivery(rawBody: Buffer, header: string | undefined): VerifiedDelivery {
      const secret = config.SHIPPING_PARTNER_WEBHOOK_SECRET;
      if (!secret) throw refusedWebhook('not_configured', 'No partner webhook secret is configured (SHIPPING_PARTNER_WEBHOOK_SECRET)');
      const verdict = verifyWebhookSignature(rawBody, header, secret);
      if (!verdict.valid) throw refusedWebhook(verdict.reason, `The partner signature is not valid (${verdict.reason})`);
      // The matching v1 is the replay key: re-sending these exact bytes under this timestamp is refused.
      const signature = /v1=([0-9a-fA-F]{64})/.exec(header!)?.[1]?.toLowerCase() ?? header!;
      return { signature, signedAt: new Date(verdict.timestamp * 1000) };
    },

    /**
     * A verified partner event: its delivery is recorded (once: a replayed delivery is refused), the shipment it
     * names is locked, and the event applied at most once by its id. An unknown order is 404, so the partner
     * retries (its booking may not have committed yet). Applies whatever the module switch: the partner's facts
     * stay current while the merchant's routes are off.
     */
    async receivePartnerEvent(delivery: VerifiedDelivery, body: PartnerEventBody): Promise<PartnerEventAnswer> {
      const result = await sequelize.transaction(async (tx) => {
        if (!(await recordWebhookReceipt(tx, { signature: delivery.signature, eventId: body.event_id, signedAt: delivery.signedAt }))) {
          throw refusedWebhook('replayed', 'This delivery was received before (same signature): replays are refused');
        }
        const shipment = await Shipment.findOne({ where: { partnerOrderId: body.order_id }, lock: tx.LOCK.UPDATE, transaction: tx });
        if (!shipment) throw notFound('Shipment for this order_id');
        const applied = await applyPartnerEvent(tx, shipment, {
          id: body.event_id,
          source: 'webhook',
          type: body.event,
          partnerStatus: body.status,
          waybillId: body.courier_waybill_id,
          trackingUrl: body.courier_link,
          price: body.order_price,
        });
        return { applied, shipmentId: shipment.id };
      });
      if (result.applied.waybillAssigned) {
        starters.shipmentWaybillAssigned(result.shipmentId).catch((err: unknown) => logger.warn({ err, shipmentId: result.shipmentId }, 'could not wake the shipment workflow; it looks again on its own'));
      }
      return { received: true, eventId: body.event_id, outcome: result.applied.outcome };
    },
  };
}

export type ShippingService = ReturnType<typeof createShippingService>;
