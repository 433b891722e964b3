import { z } from 'zod';
import { SERVICE_TYPES } from '../../../lib/shipping/types';
import { pageQuery } from '../../pagination';
import { pathId, Timestamp } from '../../openapi';
import { shipmentStatus } from '../../../domain/shipping';

export { CancelShipmentBody, PartnerEventBody, RatesBody, UpdateOriginBody } from '../../../domain/shipping';

export const ListShipmentsQuery = pageQuery().extend({
  status: shipmentStatus.optional().meta({ description: 'Only shipments with this status' }),
});
export type ListShipmentsQuery = z.infer<typeof ListShipmentsQuery>;

export const ShipmentIdParams = z.object({ id: pathId });
export const WaybillParams = z.object({ waybillId: z.string().min(1).max(200) });
export const LabelTokenParams = z.object({ token: z.string().min(1).max(1000).meta({ description: 'The signed token of a label `url`' }) });

const optionalText = z.string().nullable();

export const ShippingOrigin = z
  .object({
    accountId: z.string(),
    configured: z.boolean().meta({ description: 'False until the first PATCH; the fields are null until then' }),
    address: optionalText,
    contactName: optionalText,
    contactPhone: optionalText,
    province: optionalText,
    city: optionalText,
    district: optionalText,
    village: optionalText,
    postal: optionalText,
    areaId: optionalText,
    lat: z.number().nullable(),
    lng: z.number().nullable(),
    note: optionalText,
    couriers: z.array(z.string()).meta({ description: 'Courier codes the store ships with; empty means every courier' }),
    updatedAt: Timestamp.nullable(),
  })
  .meta({ id: 'ShippingOrigin' });

const etaUnit = z.enum(['hours', 'days']);
const serviceType = z.enum(SERVICE_TYPES);

export const Courier = z
  .object({
    code: z.string().meta({ example: 'jne' }),
    name: z.string(),
    logo: z.string().meta({ description: 'Image URL (a data: URL of a generated badge)' }),
    services: z.array(
      z.object({
        code: z.string().meta({ example: 'reg' }),
        name: z.string(),
        type: serviceType,
        description: z.string(),
        supportsInsurance: z.boolean(),
        supportsCod: z.boolean(),
        etaMin: z.int(),
        etaMax: z.int(),
        etaUnit,
      }),
    ),
  })
  .meta({ id: 'ShippingCourier' });

export const ShippingRates = z
  .object({
    pricing: z.array(
      z.object({
        courierCode: z.string(),
        courierName: z.string(),
        courierServiceCode: z.string(),
        courierServiceName: z.string(),
        courierType: serviceType,
        price: z.int().meta({ description: 'Smallest unit of currency' }),
        currency: z.string(),
        etaMin: z.int(),
        etaMax: z.int(),
        etaUnit,
        insuranceFee: z.int(),
        supportsCod: z.boolean(),
      }),
    ),
  })
  .meta({ id: 'ShippingRates' });

const place = z
  .object({
    address: z.string().optional(),
    contactName: z.string().optional(),
    contactPhone: z.string().optional(),
    province: z.string().optional(),
    city: z.string().optional(),
    district: z.string().optional(),
    village: z.string().optional(),
    postal: z.string().optional(),
    areaId: z.string().optional(),
    lat: z.number().optional(),
    lng: z.number().optional(),
    note: z.string().optional(),
  })
  .meta({ id: 'ShippingPlace', description: 'The fields known of the place' });

export const Shipment = z
  .object({
    id: z.string().meta({ example: 'shp_01JD4X7V1QZ8N6Y3K2M5P9R0TS' }),
    accountId: z.string(),
    waybillId: z.string().nullable().meta({ description: 'The courier’s waybill; null until booked (or until the courier assigns it)' }),
    courierCode: z.string(),
    courierServiceCode: z.string(),
    status: shipmentStatus,
    price: z.int().nullable().meta({ description: 'What the partner charges, smallest unit of currency; null until booked' }),
    currency: z.string(),
    insurance: z.boolean(),
    origin: place.nullable().meta({ description: 'Snapshot of the ship-from origin; null when none was set yet' }),
    destination: place,
    items: z.array(z.object({ name: z.string(), value: z.int(), weight: z.int(), length: z.int().optional(), width: z.int().optional(), height: z.int().optional(), quantity: z.int() })),
    labelUrl: z.string().nullable().meta({ description: 'Signed link to the label PDF, signed anew on every read; null until the label is made' }),
    trackingUrl: z.string().nullable(),
    externalSource: z.string().meta({ example: 'checkout_session' }),
    externalRef: z.string().meta({ description: 'The `cs_` session the shipment fulfils' }),
    cancellationReason: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Shipment' });

export const LabelLink = z.object({ url: z.string(), expiresAt: Timestamp }).meta({ id: 'ShipmentLabelLink' });

export const PartnerEventAnswer = z
  .object({ received: z.literal(true), eventId: z.string(), outcome: z.enum(['applied', 'ignored', 'duplicate']) })
  .meta({ id: 'ShippingPartnerEventAnswer' });
