import { serviceTypeOf } from '../../../lib/shipping/biteship';
import { localOrderId, localWaybill } from '../../../lib/shipping/local-partner';

// docs/decisions/shipping.md: how the aggregator's service types map onto ours, and the local partner's derived ids.

describe('the aggregator’s service types', () => {
  it('map freight to cargo, instant and same_day to themselves, everything else to regular', () => {
    expect(serviceTypeOf({ shipping_type: 'freight', service_type: 'instant' })).toBe('cargo');
    expect(serviceTypeOf({ shipping_type: 'parcel', service_type: 'instant' })).toBe('instant');
    expect(serviceTypeOf({ shipping_type: 'parcel', service_type: 'same_day' })).toBe('same-day');
    expect(serviceTypeOf({ shipping_type: 'parcel', service_type: 'standard' })).toBe('regular');
    expect(serviceTypeOf({ shipping_type: 'parcel', service_type: 'overnight' })).toBe('regular');
    expect(serviceTypeOf({})).toBe('regular');
    // Only freight is cargo: a service_type that names cargo without it is a parcel service.
    expect(serviceTypeOf({ shipping_type: 'parcel', service_type: 'cargo' })).toBe('regular');
  });
});

describe('the local partner’s ids', () => {
  const shipmentId = 'shp_01JD0000000000000000ABCDEF';

  it('derive the waybill (LP + the last 12 characters of the id) and the order id (lpo_ + the ULID)', () => {
    expect(localWaybill(shipmentId)).toBe('LP000000ABCDEF');
    expect(localOrderId(shipmentId)).toBe('lpo_01JD0000000000000000ABCDEF');
  });

  it('answer the same for the same shipment, so a repeated booking is the same booking', () => {
    expect(localWaybill(shipmentId)).toBe(localWaybill(shipmentId));
    expect(localWaybill('shp_01JD0000000000000000ABCDEG')).not.toBe(localWaybill(shipmentId));
  });
});
