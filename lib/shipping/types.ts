/**
 * The one interface every shipping partner is reached through (docs/decisions/shipping.md): the couriers it
 * offers, rate quotes, booking and cancelling a shipment, its label, and the status events it sends back.
 * Field names follow the aggregator API the HTTP adapter speaks (courier and service codes, area ids, waybills).
 */

/** Document 1's service types, in the order couriers are listed. */
export const SERVICE_TYPES = ['instant', 'same-day', 'regular', 'cargo'] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];

/** Where a parcel leaves from or goes to: the origin's fields, every one optional here (a snapshot, a rate request). */
export interface Place {
  address?: string;
  contactName?: string;
  contactPhone?: string;
  province?: string;
  city?: string;
  district?: string;
  village?: string;
  postal?: string;
  /** The partner's area id (e.g. `IDNP6IDNC148IDND836IDZ12410`): the most precise way to name a place. */
  areaId?: string;
  lat?: number;
  lng?: number;
  note?: string;
}

export interface ParcelItem {
  name: string;
  /** Declared value of one unit, for insurance. */
  value: number;
  /** Grams per unit. */
  weight: number;
  /** Centimetres per unit; all three or the item counts by weight alone. */
  length?: number;
  width?: number;
  height?: number;
  quantity: number;
}

export type EtaUnit = 'hours' | 'days';

export interface CourierService {
  code: string;
  name: string;
  type: ServiceType;
  description: string;
  supportsInsurance: boolean;
  supportsCod: boolean;
  etaMin: number;
  etaMax: number;
  etaUnit: EtaUnit;
}

export interface Courier {
  code: string;
  name: string;
  /** An image URL (a data: URL for the generated badges). */
  logo: string;
  services: CourierService[];
}

export interface RateRequest {
  origin: Place;
  destination: Place;
  items: ParcelItem[];
  /** Courier codes to quote, already checked against `couriers()`. */
  couriers: string[];
  insurance: boolean;
}

export interface Rate {
  courierCode: string;
  courierName: string;
  courierServiceCode: string;
  courierServiceName: string;
  courierType: ServiceType;
  /** The shipping fee, smallest unit of `currency`. */
  price: number;
  currency: string;
  etaMin: number;
  etaMax: number;
  etaUnit: EtaUnit;
  /** 0 unless insurance was asked for. */
  insuranceFee: number;
  supportsCod: boolean;
}

export interface BookingRequest {
  /** Our shipment id: the partner's reference, which makes a repeated booking find the first. */
  reference: string;
  courierCode: string;
  courierServiceCode: string;
  origin: Place;
  destination: Place;
  items: ParcelItem[];
  insurance: boolean;
}

/** The partner's statuses this service knows, as its webhooks and order objects name them. */
export type PartnerOrderStatus = string;

export interface Booking {
  orderId: string;
  /** null when the courier assigns it later (an `order.waybill_id` event then brings it). */
  waybillId: string | null;
  trackingUrl: string | null;
  price: number;
  currency: string;
  /** The order's status as the partner answered it, when it said one. */
  status: PartnerOrderStatus | null;
}

/** Everything printed on a label. */
export interface LabelInput {
  shipmentId: string;
  waybillId: string;
  courierName: string;
  serviceName: string;
  origin: Place | null;
  destination: Place;
  items: ParcelItem[];
  reference: string;
  createdAt: Date;
}

/**
 * A partner's refusal or absence. `refused`: it answered and said no (a 4xx: unknown service, a cancel after
 * pickup): retrying changes nothing. `unavailable`: no usable answer (down, timeout, 5xx): retry later.
 */
export class PartnerError extends Error {
  constructor(
    readonly kind: 'refused' | 'unavailable',
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'PartnerError';
  }
}

export const PARTNER_NAMES = ['local', 'biteship'] as const;
export type PartnerName = (typeof PARTNER_NAMES)[number];

export interface ShippingPartner {
  readonly name: PartnerName;
  couriers(): Promise<Courier[]>;
  rates(request: RateRequest): Promise<Rate[]>;
  /** Books the shipment; repeating it with the same `reference` answers the first booking. */
  createShipment(request: BookingRequest): Promise<Booking>;
  /** Cancels a booked order; `refused` once the courier has the parcel. */
  cancelShipment(orderId: string, reason: string): Promise<void>;
  /** The label as a PDF. */
  label(input: LabelInput): Promise<Buffer>;
}
