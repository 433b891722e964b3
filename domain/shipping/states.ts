import type { ShipmentOutcome } from '../../workflows/messages';

/**
 * A shipment workflow's life as its `LifecycleState` names it, importing nothing that runs (the workflow bundle
 * reads it): `booking` with the partner, `awaiting_waybill` (the label waits for the courier's waybill),
 * `in_transit` (the local partner's status schedule plays), then its outcome: `booked` (handed to an HTTP
 * partner, whose webhooks move it), `delivered`, `cancelled` or `returned`.
 */
export type ShipmentState = 'booking' | 'awaiting_waybill' | 'in_transit' | ShipmentOutcome;
