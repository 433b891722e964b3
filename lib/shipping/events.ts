/**
 * The shipment statuses of document 1, and how the partner's order statuses (the aggregator's names) map onto
 * them. The partner has more steps than we show; several of its statuses are one of ours.
 */
export const SHIPMENT_STATUSES = ['pending', 'confirmed', 'picked_up', 'in_transit', 'delivered', 'cancelled', 'returned'] as const;
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];

const FROM_PARTNER: Record<string, ShipmentStatus> = {
  confirmed: 'confirmed',
  scheduled: 'confirmed',
  allocated: 'confirmed',
  picking_up: 'confirmed',
  picked: 'picked_up',
  dropping_off: 'in_transit',
  on_hold: 'in_transit',
  return_in_transit: 'in_transit',
  delivered: 'delivered',
  returned: 'returned',
  cancelled: 'cancelled',
  rejected: 'cancelled',
  courier_not_found: 'cancelled',
};

/** Ours for a partner status; null for one we do not track (e.g. `disposed`), which is recorded and ignored. */
export function statusFromPartner(partnerStatus: string): ShipmentStatus | null {
  return Object.hasOwn(FROM_PARTNER, partnerStatus) ? FROM_PARTNER[partnerStatus]! : null;
}

/** The local partner's simulated steps send the partner's names too, so both partners' events read alike. */
export const LOCAL_PARTNER_STEPS = [
  { partnerStatus: 'confirmed', status: 'confirmed' },
  { partnerStatus: 'picked', status: 'picked_up' },
  { partnerStatus: 'dropping_off', status: 'in_transit' },
  { partnerStatus: 'delivered', status: 'delivered' },
] as const satisfies readonly { partnerStatus: string; status: ShipmentStatus }[];

/** Forward order of the moving statuses; a move applies only forward (events can arrive out of order). */
const RANK: Record<ShipmentStatus, number> = { pending: 0, confirmed: 1, picked_up: 2, in_transit: 3, delivered: 4, returned: 5, cancelled: 5 };

/** Before pickup: the only time a shipment can be canceled (by the merchant or the partner). */
export const CANCELLABLE: readonly ShipmentStatus[] = ['pending', 'confirmed'];

/**
 * Whether `to` may follow `from`: forward moves along pending → confirmed → picked_up → in_transit → delivered;
 * `cancelled` only before pickup; `returned` once the courier has the parcel. Canceled and returned are
 * final; so is delivered, except for a return.
 */
export function canMove(from: ShipmentStatus, to: ShipmentStatus): boolean {
  if (from === to || from === 'cancelled' || from === 'returned') return false;
  if (to === 'cancelled') return CANCELLABLE.includes(from);
  if (to === 'returned') return RANK[from] >= RANK.picked_up;
  if (from === 'delivered') return false;
  return RANK[to] > RANK[from];
}

export const TERMINAL: readonly ShipmentStatus[] = ['delivered', 'cancelled', 'returned'];
