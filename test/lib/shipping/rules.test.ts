import { canMove, SHIPMENT_STATUSES, statusFromPartner, type ShipmentStatus } from '../../../lib/shipping/events';
import { chargeableGrams, chargeableKg, shippingFee, zoneBetween } from '../../../lib/shipping/rate-table';

describe('shipment status moves', () => {
  it('go forward only; cancel before pickup only; return once picked up; cancelled and returned are final', () => {
    const allowed = SHIPMENT_STATUSES.flatMap((from) => SHIPMENT_STATUSES.filter((to) => canMove(from, to)).map((to) => `${from}→${to}`));
    expect(allowed).toEqual([
      'pending→confirmed',
      'pending→picked_up',
      'pending→in_transit',
      'pending→delivered',
      'pending→cancelled',
      'confirmed→picked_up',
      'confirmed→in_transit',
      'confirmed→delivered',
      'confirmed→cancelled',
      'picked_up→in_transit',
      'picked_up→delivered',
      'picked_up→returned',
      'in_transit→delivered',
      'in_transit→returned',
      'delivered→returned',
    ] satisfies `${ShipmentStatus}→${ShipmentStatus}`[]);
  });

  it('maps the partner’s statuses onto ours', () => {
    expect(['confirmed', 'allocated', 'picking_up', 'picked', 'dropping_off', 'return_in_transit', 'delivered', 'returned', 'rejected', 'disposed'].map(statusFromPartner)).toEqual([
      'confirmed',
      'confirmed',
      'confirmed',
      'picked_up',
      'in_transit',
      'in_transit',
      'delivered',
      'returned',
      'cancelled',
      null,
    ]);
  });
});

describe('the local rate table', () => {
  it('zones: area ids, then coordinates, then postal codes, then names', () => {
    expect(zoneBetween({ areaId: 'IDNP6IDNC148IDND1' }, { areaId: 'IDNP6IDNC148IDND9' })).toBe(1);
    expect(zoneBetween({ areaId: 'IDNP6IDNC148' }, { areaId: 'IDNP6IDNC150' })).toBe(2);
    expect(zoneBetween({ areaId: 'IDNP6IDNC148' }, { areaId: 'IDNP9IDNC148' })).toBe(3);
    expect(zoneBetween({ lat: -6.2, lng: 106.8 }, { lat: -6.9, lng: 107.6 })).toBe(2); // ~120 km
    expect(zoneBetween({ lat: -6.2, lng: 106.8 }, { lat: -7.25, lng: 112.75 })).toBe(3);
    expect(zoneBetween({ postal: '12950' }, { postal: '12960' })).toBe(1);
    expect(zoneBetween({ postal: '12950' }, { postal: '12110' })).toBe(2);
    expect(zoneBetween({ city: ' Bandung ' }, { city: 'bandung' })).toBe(1);
    expect(zoneBetween({ province: 'Jawa Barat' }, { province: 'JAWA BARAT' })).toBe(2);
    expect(zoneBetween({}, {})).toBe(3);
  });

  it('chargeable weight is the larger of actual and volumetric, per unit, rounded up to whole kg', () => {
    expect(chargeableGrams([{ name: 'a', value: 0, weight: 300, quantity: 3 }])).toBe(900);
    expect(chargeableGrams([{ name: 'a', value: 0, weight: 300, length: 30, width: 20, height: 10, quantity: 2 }])).toBe(2_000);
    expect([chargeableKg(900, 'regular'), chargeableKg(1_001, 'regular'), chargeableKg(1_001, 'cargo')]).toEqual([1, 2, 10]);
    expect(shippingFee('regular', 3, 2, 1.05)).toBe(46_500); // 44 000 × 1.05 = 46 200, up to the next 500
  });
});
