import type { Courier, CourierService, ServiceType } from './types';

/**
 * The local partner's courier catalogue: the aggregator's courier and service codes (so an integration built
 * against test mode keeps its codes with the real partner), simulated prices (docs/decisions/shipping.md,
 * "Local partner"). `factor` scales the rate table's price for the courier's service; `maxKg` bounds the
 * chargeable weight it takes.
 */
export interface LocalService extends Omit<CourierService, 'etaMin' | 'etaMax' | 'etaUnit'> {
  factor: number;
  maxKg: number;
}

export interface LocalCourier {
  code: string;
  name: string;
  /** Badge colour of the generated logo. */
  colour: string;
  services: LocalService[];
}

const service = (code: string, name: string, type: ServiceType, options: { factor?: number; maxKg?: number; cod?: boolean; insurance?: boolean; description: string }): LocalService => ({
  code,
  name,
  type,
  description: options.description,
  supportsCod: options.cod ?? false,
  supportsInsurance: options.insurance ?? true,
  factor: options.factor ?? 1,
  maxKg: options.maxKg ?? (type === 'instant' || type === 'same-day' ? 20 : type === 'cargo' ? 1000 : 50),
});

export const LOCAL_COURIERS: LocalCourier[] = [
  {
    code: 'jne',
    name: 'JNE',
    colour: '#1d3f8f',
    services: [
      service('reg', 'Reguler', 'regular', { cod: true, description: 'Standard parcel delivery' }),
      service('yes', 'Yakin Esok Sampai', 'regular', { factor: 1.6, maxKg: 30, description: 'Next-day parcel delivery' }),
      service('jtr', 'JNE Trucking', 'cargo', { description: 'Heavy goods by truck, 10 kg minimum' }),
    ],
  },
  {
    code: 'jnt',
    name: 'J&T Express',
    colour: '#d71920',
    services: [service('ez', 'EZ', 'regular', { factor: 0.95, cod: true, description: 'Standard parcel delivery' })],
  },
  {
    code: 'sicepat',
    name: 'SiCepat',
    colour: '#c4161c',
    services: [
      service('reg', 'Reguler', 'regular', { factor: 0.9, cod: true, description: 'Standard parcel delivery' }),
      service('best', 'Besok Sampai Tujuan', 'regular', { factor: 1.5, maxKg: 30, description: 'Next-day parcel delivery' }),
      service('gokil', 'Cargo', 'cargo', { factor: 0.9, description: 'Heavy goods, 10 kg minimum' }),
    ],
  },
  {
    code: 'anteraja',
    name: 'AnterAja',
    colour: '#e6007e',
    services: [
      service('reg', 'Regular', 'regular', { factor: 0.95, cod: true, description: 'Standard parcel delivery' }),
      service('same_day', 'Same Day', 'same-day', { description: 'Delivered the same day within the city' }),
    ],
  },
  {
    code: 'pos',
    name: 'POS Indonesia',
    colour: '#f26522',
    services: [service('reg', 'Pos Reguler', 'regular', { factor: 1.05, description: 'Standard parcel delivery' })],
  },
  {
    code: 'gojek',
    name: 'Gojek',
    colour: '#00aa13',
    services: [
      service('instant', 'GoSend Instant', 'instant', { insurance: false, description: 'A rider picks up and delivers within hours, same city' }),
      service('same_day', 'GoSend Same Day', 'same-day', { factor: 0.9, insurance: false, description: 'Delivered the same day within the city' }),
    ],
  },
  {
    code: 'grab',
    name: 'Grab',
    colour: '#00b14f',
    services: [
      service('instant', 'GrabExpress Instant', 'instant', { factor: 1.05, insurance: false, description: 'A rider picks up and delivers within hours, same city' }),
      service('same_day', 'GrabExpress Same Day', 'same-day', { factor: 0.95, insurance: false, description: 'Delivered the same day within the city' }),
    ],
  },
  {
    code: 'deliveree',
    name: 'Deliveree',
    colour: '#0e73b9',
    services: [service('van', 'Van', 'cargo', { factor: 1.2, maxKg: 800, description: 'A van for bulky goods, 10 kg minimum' })],
  },
];

/** A courier's logo: a small SVG badge with its name, generated so the catalogue needs no image host. */
export function courierLogo(name: string, colour = '#334155'): string {
  const label = name.replace(/[^A-Za-z0-9& ]/g, '').slice(0, 12);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" viewBox="0 0 120 40">` +
    `<rect width="120" height="40" rx="6" fill="${colour}"/>` +
    `<text x="60" y="26" font-family="Helvetica,Arial,sans-serif" font-size="15" font-weight="bold" fill="#fff" text-anchor="middle">${label.replace('&', '&amp;')}</text></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}

/** The catalogue as the API shows it, with each service's ETA range within the city. */
export function localCouriers(etaOf: (type: ServiceType) => { etaMin: number; etaMax: number; etaUnit: 'hours' | 'days' }): Courier[] {
  return LOCAL_COURIERS.map((courier) => ({
    code: courier.code,
    name: courier.name,
    logo: courierLogo(courier.name, courier.colour),
    services: courier.services.map(({ factor: _factor, maxKg: _maxKg, ...rest }) => ({ ...rest, ...etaOf(rest.type) })),
  }));
}
