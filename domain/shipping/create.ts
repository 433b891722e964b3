import type { Transaction } from 'sequelize';
import { Shipment, ShippingOrigin, type ShippingAddress } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { validationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { ShippingPartners } from '../../lib/shipping';
import type { ParcelItem, Place } from '../../lib/shipping/types';
import { recordStart } from '../workflow-starts';
import { placeOf } from './dto';
import { partnerCall } from './partner-errors';

/** What the checkout fulfillment knows of one physical line. */
export interface CheckoutShipmentInput {
  checkoutSessionId: string;
  lineKey: string;
  /** From the session's metadata (`courierCode`, `courierService`), checked when the session was created. */
  courierCode: string;
  courierService: string;
  /** The buyer's shipping address as a place (placeFromShippingAddress). */
  destination: Place;
  items: ParcelItem[];
  /** Insure the declared value (default false). */
  insurance?: boolean;
}

export interface CreatedShipment {
  shipmentId: string;
  /** False when the line already had its shipment (a retried step): nothing was written. */
  created: boolean;
  /** The recorded start of `shipment:<shp>`, to start right after the commit (startRecordedNow); null when not created. */
  workflowId: string | null;
}

/**
 * Creates the shipment of one physical line of a completed checkout, in the fulfillment step's transaction, and
 * records the durable start of its `shipment:shp_…` workflow there too (which books it with the partner, renders
 * the label, and for the local partner plays its status schedule). Idempotent per (session, line). Only local
 * writes happen here: the partner is called by the workflow, never inside the checkout's transaction. The origin
 * is snapshotted as it is now; with none set yet, booking waits for one (docs/decisions/shipping.md).
 */
export async function createShipmentForCheckoutLine(tx: Transaction, tenant: Tenant, input: CheckoutShipmentInput): Promise<CreatedShipment> {
  const scope = tenantWhere(tenant);
  const existing = await Shipment.findOne({ where: { checkoutSessionId: input.checkoutSessionId, lineKey: input.lineKey, ...scope }, attributes: ['id'], transaction: tx });
  if (existing) return { shipmentId: existing.id, created: false, workflowId: null };
  if (input.items.length === 0 || input.items.some((item) => !(item.weight > 0) || !(item.quantity > 0))) {
    // The fulfillment builds items from physical products, which always have a weight: anything else is a bug.
    throw new Error(`checkout session ${input.checkoutSessionId} line ${input.lineKey}: a shipment needs items with a weight and a quantity`);
  }
  const origin = await ShippingOrigin.findOne({ where: scope, transaction: tx });
  const shipment = await Shipment.create(
    {
      id: newId('shp'),
      ...scope,
      courierCode: input.courierCode,
      courierServiceCode: input.courierService,
      insurance: input.insurance ?? false,
      origin: origin ? placeOf(origin) : null,
      destination: input.destination,
      items: input.items,
      externalSource: 'checkout_session',
      externalRef: input.checkoutSessionId,
      checkoutSessionId: input.checkoutSessionId,
      lineKey: input.lineKey,
    },
    { transaction: tx },
  );
  const workflowId = await recordStart(tx, tenant, { workflowType: 'shipment', input: { ...scope, shipmentId: shipment.id } });
  return { shipmentId: shipment.id, created: true, workflowId };
}

/** The buyer's address as the storefront stores it (domain/checkout/storefront-inputs.ts), as a place. */
export function placeFromShippingAddress(address: ShippingAddress): Place {
  const place: Place = {
    address: [address.line1, address.line2].filter(Boolean).join(', '),
    ...(address.name ? { contactName: address.name } : {}),
    ...(address.phone ? { contactPhone: address.phone } : {}),
    ...(address.city ? { city: address.city } : {}),
    ...(address.region ? { province: address.region } : {}),
    ...(address.postalCode ? { postal: address.postalCode } : {}),
  };
  return place;
}

/** The courier choice a checkout carries in its metadata, or null when it names none. */
export function shippingChoiceOf(metadata: Record<string, unknown>): { courierCode: string; courierService: string } | null {
  const { courierCode, courierService } = metadata;
  return typeof courierCode === 'string' && typeof courierService === 'string' ? { courierCode, courierService } : null;
}

/**
 * Checks a checkout's courier choice when the session is created (before its transaction: the HTTP partner's
 * catalogue is a network call): a known courier, allowed by the origin's list, with that service.
 * `400 VALIDATION_ERROR` on `metadata.courierCode` / `metadata.courierService` otherwise.
 */
export async function assertShippingChoice(partners: ShippingPartners, tenant: Tenant, choice: { courierCode: string; courierService: string } | null): Promise<void> {
  if (!choice) {
    throw validationError('metadata.courierCode: a physical product ships: name the courier and its service in metadata.courierCode and metadata.courierService', [
      { field: 'metadata.courierCode', message: 'required for a physical product, with metadata.courierService' },
    ]);
  }
  const couriers = await partnerCall(() => partners.forEnvironment(tenant.environment).couriers());
  const origin = await ShippingOrigin.findOne({ where: tenantWhere(tenant), attributes: ['couriers'] });
  const courier = couriers.find((c) => c.code === choice.courierCode);
  if (!courier || (origin && origin.couriers.length > 0 && !origin.couriers.includes(courier.code))) {
    throw validationError(`metadata.courierCode: ${choice.courierCode} is not a courier this store ships with`, [
      { field: 'metadata.courierCode', message: 'not a courier this store ships with' },
    ]);
  }
  if (!courier.services.some((s) => s.code === choice.courierService)) {
    throw validationError(`metadata.courierService: ${courier.code} has no service ${choice.courierService}`, [
      { field: 'metadata.courierService', message: `not a service of ${courier.code}: ${courier.services.map((s) => s.code).join(', ')}` },
    ]);
  }
}
