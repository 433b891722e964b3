import { LOCAL_COURIERS, localCouriers } from './local-catalogue';
import { renderLabel } from './label';
import { availableInZone, chargeableGrams, chargeableKg, etaOf, insuranceFee, shippingFee, zoneBetween } from './rate-table';
import { PartnerError, type Booking, type BookingRequest, type Courier, type Rate, type RateRequest, type ShippingPartner } from './types';

export const LOCAL_CURRENCY = 'IDR';

/** Waybills and order ids derive from our shipment id, so booking the same shipment twice answers the same. */
const ulidOf = (reference: string) => reference.slice(reference.indexOf('_') + 1);
export const localWaybill = (reference: string) => `LP${ulidOf(reference).slice(-12)}`;
export const localOrderId = (reference: string) => `lpo_${ulidOf(reference)}`;

/**
 * The built-in partner (the default): a courier catalogue and a deterministic rate table, bookings that
 * succeed at once with a waybill, cancels allowed until the `shipment:shp_…` workflow reports pickup (the
 * shipment's status is checked before this is asked), and the label rendered here. No network.
 */
export function createLocalPartner(): ShippingPartner {
  function quote(request: Omit<RateRequest, 'couriers'> & { couriers: string[] }): Rate[] {
    const zone = zoneBetween(request.origin, request.destination);
    const grams = chargeableGrams(request.items);
    const rates: Rate[] = [];
    for (const courier of LOCAL_COURIERS) {
      if (!request.couriers.includes(courier.code)) continue;
      for (const service of courier.services) {
        const kg = chargeableKg(grams, service.type);
        if (!availableInZone(service.type, zone) || kg > service.maxKg) continue;
        if (request.insurance && !service.supportsInsurance) continue;
        rates.push({
          courierCode: courier.code,
          courierName: courier.name,
          courierServiceCode: service.code,
          courierServiceName: service.name,
          courierType: service.type,
          price: shippingFee(service.type, zone, kg, service.factor),
          currency: LOCAL_CURRENCY,
          ...etaOf(service.type, zone),
          insuranceFee: request.insurance ? insuranceFee(request.items) : 0,
          supportsCod: service.supportsCod,
        });
      }
    }
    return rates.sort((a, b) => a.price - b.price || a.courierCode.localeCompare(b.courierCode) || a.courierServiceCode.localeCompare(b.courierServiceCode));
  }

  return {
    name: 'local',
    async couriers(): Promise<Courier[]> {
      return localCouriers((type) => etaOf(type, 1));
    },
    async rates(request: RateRequest): Promise<Rate[]> {
      return quote(request);
    },
    async createShipment(request: BookingRequest): Promise<Booking> {
      const rate = quote({ ...request, couriers: [request.courierCode] }).find((r) => r.courierServiceCode === request.courierServiceCode);
      if (!rate) {
        throw new PartnerError('refused', `${request.courierCode}/${request.courierServiceCode} does not serve this route or parcel (unknown service, outside its zone, or over its weight)`, 400);
      }
      return {
        orderId: localOrderId(request.reference),
        waybillId: localWaybill(request.reference),
        trackingUrl: null,
        price: rate.price + rate.insuranceFee,
        currency: rate.currency,
        status: null,
      };
    },
    async cancelShipment(): Promise<void> {
      // Nothing to tell: the simulated courier has not moved yet (the caller checked the status).
    },
    label: renderLabel,
  };
}
