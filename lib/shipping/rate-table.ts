import type { EtaUnit, ParcelItem, Place, ServiceType } from './types';

/**
 * The local partner's rate table (docs/decisions/shipping.md, "Local partner: the rate table"): a pure function
 * of the parcel and the two places, so the same request always gets the same quote. Prices in IDR.
 */

/** 1: same city; 2: same province; 3: anywhere else (or not known). */
export type Zone = 1 | 2 | 3;

const AREA_ID = /^IDNP(\d+)IDNC(\d+)/i;

const norm = (value: string | undefined) => value?.trim().toLowerCase() || undefined;

/** Great-circle distance in km. */
export function distanceKm(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = (deg: number) => (deg * Math.PI) / 180;
  const dLat = rad(b.lat - a.lat);
  const dLng = rad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * The zone between two places, from the first kind of data both sides have: area ids (province and city
 * parts), coordinates (≤ 30 km: 1, ≤ 200 km: 2), postal codes (first three digits: 1, first two: 2), then city
 * and province names.
 */
export function zoneBetween(origin: Place, destination: Place): Zone {
  const a = origin.areaId ? AREA_ID.exec(origin.areaId) : null;
  const b = destination.areaId ? AREA_ID.exec(destination.areaId) : null;
  if (a && b) return a[2] === b[2] && a[1] === b[1] ? 1 : a[1] === b[1] ? 2 : 3;
  if (origin.lat !== undefined && origin.lng !== undefined && destination.lat !== undefined && destination.lng !== undefined) {
    const km = distanceKm({ lat: origin.lat, lng: origin.lng }, { lat: destination.lat, lng: destination.lng });
    return km <= 30 ? 1 : km <= 200 ? 2 : 3;
  }
  const pa = origin.postal?.replace(/\D/g, '');
  const pb = destination.postal?.replace(/\D/g, '');
  if (pa && pb && pa.length >= 3 && pb.length >= 3) return pa.slice(0, 3) === pb.slice(0, 3) ? 1 : pa.slice(0, 2) === pb.slice(0, 2) ? 2 : 3;
  if (norm(origin.city) && norm(origin.city) === norm(destination.city)) return 1;
  if (norm(origin.province) && norm(origin.province) === norm(destination.province)) return 2;
  return 3;
}

/** Volumetric weight divisor (cm³ per kg), the couriers' usual 6000. */
export const VOLUMETRIC_DIVISOR = 6000;

/**
 * Chargeable grams: each unit counts the larger of its weight and its volumetric weight
 * (length × width × height / 6000 kg), times its quantity.
 */
export function chargeableGrams(items: ParcelItem[]): number {
  return items.reduce((sum, item) => {
    const volumetric = item.length && item.width && item.height ? Math.ceil((item.length * item.width * item.height * 1000) / VOLUMETRIC_DIVISOR) : 0;
    return sum + Math.max(item.weight, volumetric) * item.quantity;
  }, 0);
}

/** Whole kilograms charged: rounded up, at least 1 (cargo: at least 10). */
export function chargeableKg(grams: number, type: ServiceType): number {
  return Math.max(type === 'cargo' ? 10 : 1, Math.ceil(grams / 1000));
}

/** Per-kg price by zone (regular, cargo) or first-kg and each further kg (instant, same-day, city only). */
const TABLE: Record<ServiceType, { perKg: [number, number, number] } | { first: number; next: number }> = {
  regular: { perKg: [9_000, 14_000, 22_000] },
  cargo: { perKg: [4_000, 6_000, 9_000] },
  'same-day': { first: 20_000, next: 4_000 },
  instant: { first: 25_000, next: 5_000 },
};

/** Instant and same-day services run within one city only. */
export const availableInZone = (type: ServiceType, zone: Zone) => zone === 1 || type === 'regular' || type === 'cargo';

/** Prices are rounded up to whole 500 rupiah, as couriers quote them. */
const roundUp500 = (amount: number) => Math.ceil(amount / 500) * 500;

/** The fee for `kg` chargeable kilograms of `type` in `zone`, scaled by the courier's factor. */
export function shippingFee(type: ServiceType, zone: Zone, kg: number, factor: number): number {
  const row = TABLE[type];
  const base = 'perKg' in row ? row.perKg[zone - 1]! * kg : row.first + row.next * (kg - 1);
  return roundUp500(base * factor);
}

/** Insurance: 0.2% of the declared value, at least 1 000 rupiah. */
export function insuranceFee(items: ParcelItem[]): number {
  const value = items.reduce((sum, item) => sum + item.value * item.quantity, 0);
  return Math.max(1_000, Math.ceil(value * 0.002));
}

/** Delivery time by service type and zone. */
export function etaOf(type: ServiceType, zone: Zone): { etaMin: number; etaMax: number; etaUnit: EtaUnit } {
  switch (type) {
    case 'instant':
      return { etaMin: 1, etaMax: 3, etaUnit: 'hours' };
    case 'same-day':
      return { etaMin: 6, etaMax: 8, etaUnit: 'hours' };
    case 'regular':
      return [
        { etaMin: 1, etaMax: 2, etaUnit: 'days' as const },
        { etaMin: 2, etaMax: 3, etaUnit: 'days' as const },
        { etaMin: 3, etaMax: 5, etaUnit: 'days' as const },
      ][zone - 1]!;
    case 'cargo':
      return [
        { etaMin: 2, etaMax: 4, etaUnit: 'days' as const },
        { etaMin: 3, etaMax: 6, etaUnit: 'days' as const },
        { etaMin: 5, etaMax: 10, etaUnit: 'days' as const },
      ][zone - 1]!;
  }
}
