import { availableInZone, chargeableGrams, chargeableKg, distanceKm, etaOf, insuranceFee, shippingFee, zoneBetween } from '../../../lib/shipping/rate-table';
import type { ParcelItem } from '../../../lib/shipping/types';

// docs/decisions/shipping.md, "The rate table", beyond what rules.test.ts checks: every row of the table, the 500-rupiah
// rounding at its boundary, insurance, availability, ETAs and the zone's distance thresholds.

const item = (over: Partial<ParcelItem> = {}): ParcelItem => ({ name: 'a', value: 0, weight: 1_000, quantity: 1, ...over });

describe('shippingFee', () => {
  it('charges per kg by zone for regular and cargo', () => {
    expect(([1, 2, 3] as const).map((zone) => shippingFee('regular', zone, 2, 1))).toEqual([18_000, 28_000, 44_000]);
    expect(([1, 2, 3] as const).map((zone) => shippingFee('cargo', zone, 10, 1))).toEqual([40_000, 60_000, 90_000]);
  });

  it('charges a first kg and each further kg for same-day and instant', () => {
    expect([1, 2, 5].map((kg) => shippingFee('same-day', 1, kg, 1))).toEqual([20_000, 24_000, 36_000]);
    expect([1, 2, 5].map((kg) => shippingFee('instant', 1, kg, 1))).toEqual([25_000, 30_000, 45_000]);
  });

  it('rounds the factored price up to whole 500 rupiah, leaving an exact multiple alone', () => {
    expect(shippingFee('regular', 1, 1, 0.95)).toBe(9_000); // 8 550 → 9 000
    expect(shippingFee('regular', 1, 1, 1.5)).toBe(13_500); // 13 500 exactly
    expect(shippingFee('same-day', 1, 1, 0.9)).toBe(18_000); // 18 000 exactly
    expect(shippingFee('instant', 1, 1, 1.05)).toBe(26_500); // 26 250 → 26 500
    expect(shippingFee('cargo', 3, 10, 1.2)).toBe(108_000);
  });
});

describe('chargeable weight', () => {
  it('counts volumetric weight only with all three dimensions, and rounds up from the first gram past a kg', () => {
    expect(chargeableGrams([item({ weight: 100, length: 60, width: 50 })])).toBe(100);
    expect(chargeableGrams([item({ weight: 100, length: 60, width: 50, height: 40 })])).toBe(20_000); // 120 000 cm³ / 6000
    expect([chargeableKg(0, 'regular'), chargeableKg(1_000, 'regular'), chargeableKg(1_001, 'regular')]).toEqual([1, 1, 2]);
    expect([chargeableKg(10_000, 'cargo'), chargeableKg(10_001, 'cargo')]).toEqual([10, 11]);
  });
});

describe('insuranceFee', () => {
  it('is 0.2 % of the declared value × quantity, rounded up, at least 1 000', () => {
    expect(insuranceFee([item({ value: 100_000 })])).toBe(1_000);
    expect(insuranceFee([item({ value: 500_000 })])).toBe(1_000);
    expect(insuranceFee([item({ value: 500_001 })])).toBe(1_001); // 1 000.002 → 1 001
    expect(insuranceFee([item({ value: 1_500_000, quantity: 2 }), item({ value: 250_000 })])).toBe(6_500);
  });
});

describe('availability and ETAs', () => {
  it('run instant and same-day within one city only; regular and cargo everywhere', () => {
    const available = (['instant', 'same-day', 'regular', 'cargo'] as const).flatMap((type) => ([1, 2, 3] as const).filter((zone) => availableInZone(type, zone)).map((zone) => `${type}:${zone}`));
    expect(available).toEqual(['instant:1', 'same-day:1', 'regular:1', 'regular:2', 'regular:3', 'cargo:1', 'cargo:2', 'cargo:3']);
  });

  it('give hours for instant and same-day, days by zone for regular and cargo', () => {
    expect(etaOf('instant', 1)).toEqual({ etaMin: 1, etaMax: 3, etaUnit: 'hours' });
    expect(etaOf('same-day', 1)).toEqual({ etaMin: 6, etaMax: 8, etaUnit: 'hours' });
    expect(([1, 2, 3] as const).map((zone) => etaOf('regular', zone))).toEqual([
      { etaMin: 1, etaMax: 2, etaUnit: 'days' },
      { etaMin: 2, etaMax: 3, etaUnit: 'days' },
      { etaMin: 3, etaMax: 5, etaUnit: 'days' },
    ]);
    expect(([1, 2, 3] as const).map((zone) => etaOf('cargo', zone))).toEqual([
      { etaMin: 2, etaMax: 4, etaUnit: 'days' },
      { etaMin: 3, etaMax: 6, etaUnit: 'days' },
      { etaMin: 5, etaMax: 10, etaUnit: 'days' },
    ]);
  });
});

describe('zones by distance', () => {
  // One degree of latitude is 6371 × π / 180 ≈ 111.19 km on the model's sphere.
  const kmPerDegree = (6371 * Math.PI) / 180;
  const north = (km: number) => ({ lat: km / kmPerDegree, lng: 106.8 });
  const origin = { lat: 0, lng: 106.8 };

  it('measure great-circle kilometres', () => {
    expect(distanceKm(origin, north(100))).toBeCloseTo(100, 6);
    expect(distanceKm({ lat: -6.2, lng: 106.8 }, { lat: -6.2, lng: 106.8 })).toBe(0);
  });

  it('are 1 up to 30 km, 2 up to 200 km, 3 beyond', () => {
    expect([29.999, 30.001, 199.999, 200.001].map((km) => zoneBetween(origin, north(km)))).toEqual([1, 2, 2, 3]);
  });

  it('fall back to postal codes only when both have at least three digits', () => {
    expect(zoneBetween({ postal: '12' }, { postal: '12', city: 'x' })).toBe(3);
    expect(zoneBetween({ postal: '40 115' }, { postal: '40-119' })).toBe(1);
  });
});
