import { courierLogo } from './local-catalogue';
import { renderLabel } from './label';
import {
  PartnerError,
  type Booking,
  type BookingRequest,
  type Courier,
  type EtaUnit,
  type ParcelItem,
  type Place,
  type Rate,
  type RateRequest,
  type ServiceType,
  type ShippingPartner,
} from './types';

/**
 * The HTTP adapter for a shipping aggregator speaking Biteship's public REST API (biteship.com/docs/api):
 * `GET /v1/couriers`, `POST /v1/rates/couriers`, `POST /v1/orders`, `GET /v1/orders/:id`,
 * `POST /v1/orders/:id/cancel`, authenticated by the API key as the `authorization` header. Its order-status
 * webhooks (`order.status`, `order.waybill_id`, `order.price`) are read by lib/shipping/events.ts. The API has no
 * label document, so labels are rendered here from the waybill, as for the local partner.
 */
export interface BiteshipOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

interface BiteshipCourier {
  courier_name: string;
  courier_code: string;
  courier_service_name: string;
  courier_service_code: string;
  description?: string;
  service_type?: string;
  shipping_type?: string;
  shipment_duration_range?: string;
  shipment_duration_unit?: string;
  available_for_cash_on_delivery?: boolean;
  available_for_insurance?: boolean;
}

interface BiteshipPricing extends BiteshipCourier {
  price: number;
  currency?: string;
  insurance_fee?: number;
}

interface BiteshipOrder {
  id: string;
  price?: number;
  currency?: string;
  status?: string;
  courier?: { waybill_id?: string | null; tracking_id?: string | null; link?: string | null };
}

/** The aggregator's service and shipping types, in ours: freight is cargo; same_day and instant are themselves; the rest regular. */
export function serviceTypeOf(entry: Pick<BiteshipCourier, 'service_type' | 'shipping_type'>): ServiceType {
  if (entry.shipping_type === 'freight') return 'cargo';
  if (entry.service_type === 'instant') return 'instant';
  if (entry.service_type === 'same_day') return 'same-day';
  return 'regular';
}

/** `"1 - 2"` and `"days"` → 1, 2, days; an unreadable range is 0–0. */
function eta(entry: Pick<BiteshipCourier, 'shipment_duration_range' | 'shipment_duration_unit'>): { etaMin: number; etaMax: number; etaUnit: EtaUnit } {
  const numbers = (entry.shipment_duration_range ?? '').match(/\d+/g)?.map(Number) ?? [];
  const etaMin = numbers[0] ?? 0;
  return { etaMin, etaMax: numbers[1] ?? etaMin, etaUnit: entry.shipment_duration_unit?.startsWith('hour') ? 'hours' : 'days' };
}

/** Postal codes travel as numbers in this API. */
const postalNumber = (postal: string | undefined) => (postal && /^\d+$/.test(postal) ? Number(postal) : undefined);

function items(list: ParcelItem[]) {
  return list.map((item) => ({
    name: item.name,
    value: item.value,
    quantity: item.quantity,
    weight: item.weight,
    ...(item.length ? { length: item.length } : {}),
    ...(item.width ? { width: item.width } : {}),
    ...(item.height ? { height: item.height } : {}),
  }));
}

/** The fields of one side (`origin` / `destination`) of a rate request: area id, coordinates and postal code, each when known. */
function rateSide(side: 'origin' | 'destination', place: Place): Record<string, unknown> {
  return {
    ...(place.areaId ? { [`${side}_area_id`]: place.areaId } : {}),
    ...(place.lat !== undefined && place.lng !== undefined ? { [`${side}_latitude`]: place.lat, [`${side}_longitude`]: place.lng } : {}),
    ...(postalNumber(place.postal) !== undefined ? { [`${side}_postal_code`]: postalNumber(place.postal) } : {}),
  };
}

function orderSide(side: 'origin' | 'destination', place: Place): Record<string, unknown> {
  return {
    [`${side}_contact_name`]: place.contactName ?? '',
    [`${side}_contact_phone`]: place.contactPhone ?? '',
    [`${side}_address`]: place.address ?? '',
    ...(place.note ? { [`${side}_note`]: place.note } : {}),
    ...(place.areaId ? { [`${side}_area_id`]: place.areaId } : {}),
    ...(postalNumber(place.postal) !== undefined ? { [`${side}_postal_code`]: postalNumber(place.postal) } : {}),
    ...(place.lat !== undefined && place.lng !== undefined ? { [`${side}_coordinate`]: { latitude: place.lat, longitude: place.lng } } : {}),
  };
}

export function createBiteshipPartner({ baseUrl, apiKey, timeoutMs }: BiteshipOptions): ShippingPartner {
  const root = baseUrl.replace(/\/+$/, '');

  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${root}${path}`, {
        method,
        headers: { authorization: apiKey, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new PartnerError('unavailable', `the shipping partner did not answer ${method} ${path}: ${(err as Error).message}`);
    }
    const text = await res.text().catch(() => '');
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // A non-JSON answer (a proxy's error page) is judged by its status alone.
    }
    const answer = (parsed ?? {}) as { success?: boolean; error?: string; code?: number };
    if (res.ok && answer.success !== false) return parsed as T;
    const message = `the shipping partner answered ${res.status} to ${method} ${path}${answer.error ? `: ${answer.error}` : ''}`;
    // Our key or our pace is the problem there, not the request: retrying later (with the key fixed) can succeed.
    const refused = res.status >= 400 && res.status < 500 && ![401, 403, 408, 429].includes(res.status);
    const error = new PartnerError(refused ? 'refused' : 'unavailable', message, res.status);
    throw Object.assign(error, { body: parsed });
  }

  function toBooking(order: BiteshipOrder): Booking {
    return {
      orderId: order.id,
      waybillId: order.courier?.waybill_id || null,
      trackingUrl: order.courier?.link || null,
      price: Math.round(order.price ?? 0),
      currency: order.currency ?? 'IDR',
      status: order.status ?? null,
    };
  }

  return {
    name: 'biteship',

    async couriers(): Promise<Courier[]> {
      const answer = await call<{ couriers?: BiteshipCourier[] }>('GET', '/v1/couriers');
      const byCode = new Map<string, Courier>();
      for (const entry of answer.couriers ?? []) {
        const courier = byCode.get(entry.courier_code) ?? { code: entry.courier_code, name: entry.courier_name, logo: courierLogo(entry.courier_name), services: [] };
        courier.services.push({
          code: entry.courier_service_code,
          name: entry.courier_service_name,
          type: serviceTypeOf(entry),
          description: entry.description ?? '',
          supportsInsurance: entry.available_for_insurance ?? true,
          supportsCod: entry.available_for_cash_on_delivery ?? false,
          ...eta(entry),
        });
        byCode.set(courier.code, courier);
      }
      return [...byCode.values()];
    },

    async rates(request: RateRequest): Promise<Rate[]> {
      const declared = request.items.reduce((sum, item) => sum + item.value * item.quantity, 0);
      const answer = await call<{ pricing?: BiteshipPricing[] }>('POST', '/v1/rates/couriers', {
        ...rateSide('origin', request.origin),
        ...rateSide('destination', request.destination),
        couriers: request.couriers.join(','),
        items: items(request.items),
        ...(request.insurance ? { courier_insurance: declared } : {}),
      });
      return (answer.pricing ?? [])
        .filter((p) => !request.insurance || p.available_for_insurance !== false)
        .map((p) => ({
          courierCode: p.courier_code,
          courierName: p.courier_name,
          courierServiceCode: p.courier_service_code,
          courierServiceName: p.courier_service_name,
          courierType: serviceTypeOf(p),
          price: Math.round(p.price),
          currency: p.currency ?? 'IDR',
          ...eta(p),
          insuranceFee: request.insurance ? Math.round(p.insurance_fee ?? 0) : 0,
          supportsCod: p.available_for_cash_on_delivery ?? false,
        }));
    },

    async createShipment(request: BookingRequest): Promise<Booking> {
      const declared = request.items.reduce((sum, item) => sum + item.value * item.quantity, 0);
      try {
        return toBooking(
          await call<BiteshipOrder>('POST', '/v1/orders', {
            ...orderSide('origin', request.origin),
            ...orderSide('destination', request.destination),
            courier_company: request.courierCode,
            courier_type: request.courierServiceCode,
            ...(request.insurance ? { courier_insurance: declared } : {}),
            delivery_type: 'now',
            reference_id: request.reference,
            items: items(request.items),
          }),
        );
      } catch (err) {
        // A repeated booking (our retry after a lost answer) is refused as a duplicate reference, naming the
        // order the first one created: that order is the booking.
        const existing = (err as { body?: { details?: { order_id?: string } } }).body?.details?.order_id;
        if (err instanceof PartnerError && err.kind === 'refused' && existing) return toBooking(await call<BiteshipOrder>('GET', `/v1/orders/${encodeURIComponent(existing)}`));
        throw err;
      }
    },

    async cancelShipment(orderId: string, reason: string): Promise<void> {
      await call('POST', `/v1/orders/${encodeURIComponent(orderId)}/cancel`, { cancellation_reason_code: 'others', cancellation_reason: reason });
    },

    label: renderLabel,
  };
}
