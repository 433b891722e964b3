import { z } from 'zod';
import { patchBody } from '../../lib/patch-body';
import { SHIPMENT_STATUSES } from '../../lib/shipping/events';
import { singleLine } from '../../lib/text';

/**
 * The shipping bodies: document 1's fields and bounds (origin: `address` 1–500, `contactName` 1–100,
 * `contactPhone` 1–30, `lat` −90..90, `lng` −180..180), with the bounds it leaves open in
 * docs/decisions/shipping.md ("Request bounds"). Unknown fields are refused.
 */

const optionalName = (max: number) => singleLine({ min: 1, max }).nullable().optional();

const postal = singleLine({ min: 1, max: 20 })
  .refine((v) => /^[A-Za-z0-9 -]+$/.test(v), 'must be letters, digits, spaces or -')
  .nullable()
  .optional();

const areaId = singleLine({ min: 1, max: 100 })
  .refine((v) => /^[A-Za-z0-9_-]+$/.test(v), 'must be letters, digits, _ or -')
  .nullable()
  .optional()
  .meta({ description: 'The partner’s area id (e.g. `IDNP6IDNC148IDND836IDZ12410`)' });

const lat = z.number().min(-90).max(90).nullable().optional().meta({ description: 'Decimal degrees, −90 to 90' });
const lng = z.number().min(-180).max(180).nullable().optional().meta({ description: 'Decimal degrees, −180 to 180' });

/** `lat` and `lng` name one point: both or neither. */
const bothOrNeither = (place: { lat?: number | null; lng?: number | null }) => (place.lat == null) === (place.lng == null);
const COORDINATES = { message: 'lat and lng go together: send both or neither', path: ['lng'] };

const placeFields = {
  address: singleLine({ min: 1, max: 500 }),
  contactName: singleLine({ min: 1, max: 100 }),
  contactPhone: singleLine({ min: 1, max: 30 }),
  province: optionalName(100),
  city: optionalName(100),
  district: optionalName(100),
  village: optionalName(100),
  postal,
  areaId,
  lat,
  lng,
  note: optionalName(500),
};

/** Courier codes: lower-case letters, digits, `-` and `_`, as the partner names them. */
export const courierCode = z
  .string()
  .regex(/^[a-z0-9_-]{1,50}$/, 'must be a courier code: 1 to 50 lower-case letters, digits, - or _')
  .meta({ example: 'jne' });

const courierList = z
  .array(courierCode)
  .max(50)
  .refine((codes) => new Set(codes).size === codes.length, 'must not repeat a courier');

export const UpdateOriginBody = patchBody(
  z
    .object({ ...placeFields, couriers: courierList.optional().meta({ description: 'Couriers to ship with; [] (the default) means every courier' }) })
    .strict()
    .refine(bothOrNeither, COORDINATES),
  'UpdateShippingOriginBody',
);
export type UpdateOriginBody = z.infer<typeof UpdateOriginBody>;

/** A place in a rate request: every field optional, but an `address` or an `areaId` to name it. */
const RatePlace = z
  .object({
    address: placeFields.address.optional(),
    contactName: placeFields.contactName.optional(),
    contactPhone: placeFields.contactPhone.optional(),
    province: placeFields.province,
    city: placeFields.city,
    district: placeFields.district,
    village: placeFields.village,
    postal,
    areaId,
    lat,
    lng,
    note: placeFields.note,
  })
  .strict()
  .refine((place) => place.address !== undefined || (place.areaId !== undefined && place.areaId !== null), { message: 'needs an address or an areaId' })
  .refine(bothOrNeither, COORDINATES);
export type RatePlace = z.infer<typeof RatePlace>;

export const MAX_PARCEL_ITEMS = 100;

export const ParcelItemBody = z
  .object({
    name: singleLine({ min: 1, max: 200 }),
    value: z.int().min(0).max(1_000_000_000_000).optional().meta({ description: 'Declared value of one unit (for insurance), smallest currency unit; default 0' }),
    weight: z.int().min(1).max(1_000_000).meta({ description: 'Grams per unit; required' }),
    length: z.int().min(1).max(1_000).optional().meta({ description: 'Centimetres' }),
    width: z.int().min(1).max(1_000).optional().meta({ description: 'Centimetres' }),
    height: z.int().min(1).max(1_000).optional().meta({ description: 'Centimetres' }),
    quantity: z.int().min(1).max(10_000).optional().meta({ description: 'Default 1' }),
  })
  .strict()
  .meta({ id: 'ShippingItem' });

export const RatesBody = z
  .object({
    destination: RatePlace.meta({ description: 'Where the parcel goes: an address or an areaId, plus whatever else is known (postal, lat/lng, city, province)' }),
    items: z.array(ParcelItemBody).min(1).max(MAX_PARCEL_ITEMS),
    origin: RatePlace.optional().meta({ description: 'Instead of the stored origin' }),
    couriers: courierList.min(1).optional().meta({ description: 'Courier codes to quote; default: the origin’s couriers, or all' }),
    insurance: z.boolean().optional().meta({ description: 'Quote insurance of the declared value (services without insurance are left out)' }),
  })
  .strict()
  .meta({ id: 'ShippingRatesBody' });
export type RatesBody = z.infer<typeof RatesBody>;

export const DEFAULT_CANCEL_REASON = 'Merchant cancelled';

export const CancelShipmentBody = z
  .object({ reason: singleLine({ min: 1, max: 500 }).optional().meta({ description: `Default \`${DEFAULT_CANCEL_REASON}\`` }) })
  .strict()
  .meta({ id: 'CancelShipmentBody' });
export type CancelShipmentBody = z.infer<typeof CancelShipmentBody>;

export const shipmentStatus = z.enum(SHIPMENT_STATUSES);

/**
 * A partner event as the aggregator sends it (its `order.status` / `order.waybill_id` / `order.price` payloads),
 * plus the `event_id` the signed delivery carries. Fields the partner adds later are ignored, not refused.
 */
export const PartnerEventBody = z
  .object({
    event_id: z.string().min(1).max(200).regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
    event: z.string().min(1).max(100).meta({ example: 'order.status' }),
    order_id: z.string().min(1).max(200),
    status: z.string().max(100).nullish(),
    courier_waybill_id: z.string().max(100).nullish(),
    courier_link: z.string().max(2048).nullish(),
    order_price: z.number().min(0).max(1_000_000_000_000).nullish(),
  })
  .meta({ id: 'ShippingPartnerEvent' });
export type PartnerEventBody = z.infer<typeof PartnerEventBody>;
