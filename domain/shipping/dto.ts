import type { Shipment, ShippingOrigin } from '../../db/models';
import type { ShipmentStatus } from '../../lib/shipping/events';
import type { ParcelItem, Place } from '../../lib/shipping/types';
import type { LabelLinks } from './labels';

export interface ShipmentDto {
  id: string;
  accountId: string;
  waybillId: string | null;
  courierCode: string;
  courierServiceCode: string;
  status: ShipmentStatus;
  price: number | null;
  currency: string;
  insurance: boolean;
  origin: Place | null;
  destination: Place;
  items: ParcelItem[];
  labelUrl: string | null;
  trackingUrl: string | null;
  externalSource: string;
  externalRef: string;
  cancellationReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The shipment as document 1 lists it; a label link is signed anew on every read, like a download link. */
export function toShipmentDto(row: Shipment, links: LabelLinks, now = Date.now()): ShipmentDto {
  return {
    id: row.id,
    accountId: row.accountId,
    waybillId: row.waybillId,
    courierCode: row.courierCode,
    courierServiceCode: row.courierServiceCode,
    status: row.status,
    price: row.price,
    currency: row.currency,
    insurance: row.insurance,
    origin: row.origin,
    destination: row.destination,
    items: row.items,
    labelUrl: row.labelKey ? links.sign(row.id, now).url : null,
    trackingUrl: row.trackingUrl,
    externalSource: row.externalSource,
    externalRef: row.externalRef,
    cancellationReason: row.cancellationReason,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export interface OriginDto {
  accountId: string;
  /** False until the first PATCH: then every field but `couriers` is null. */
  configured: boolean;
  address: string | null;
  contactName: string | null;
  contactPhone: string | null;
  province: string | null;
  city: string | null;
  district: string | null;
  village: string | null;
  postal: string | null;
  areaId: string | null;
  lat: number | null;
  lng: number | null;
  note: string | null;
  couriers: string[];
  updatedAt: string | null;
}

export function toOriginDto(accountId: string, row: ShippingOrigin | null): OriginDto {
  return {
    accountId,
    configured: row !== null,
    address: row?.address ?? null,
    contactName: row?.contactName ?? null,
    contactPhone: row?.contactPhone ?? null,
    province: row?.province ?? null,
    city: row?.city ?? null,
    district: row?.district ?? null,
    village: row?.village ?? null,
    postal: row?.postal ?? null,
    areaId: row?.areaId ?? null,
    lat: row?.lat ?? null,
    lng: row?.lng ?? null,
    note: row?.note ?? null,
    couriers: row?.couriers ?? [],
    updatedAt: row?.updatedAt.toISOString() ?? null,
  };
}

/** The origin as a place: its fields without the empty ones (the snapshot a shipment keeps). */
export function placeOf(row: ShippingOrigin): Place {
  const place: Place = { address: row.address, contactName: row.contactName, contactPhone: row.contactPhone };
  for (const key of ['province', 'city', 'district', 'village', 'postal', 'areaId', 'note'] as const) {
    const value = row[key];
    if (value) place[key] = value;
  }
  if (row.lat !== null && row.lng !== null) {
    place.lat = row.lat;
    place.lng = row.lng;
  }
  return place;
}
