import type { Transaction } from 'sequelize';
import type { Shipment } from '../../db/models';
import type { ShipmentEventSource } from '../../db/models/shipment-event';
import { recordShipmentEvent } from '../../db/shipping';
import { canMove, statusFromPartner, type ShipmentStatus } from '../../lib/shipping/events';

/** One partner event as this service reads it, whichever way it came (a signed webhook, a booking answer, the local partner). */
export interface PartnerEvent {
  /** The partner's event id: an event is applied at most once, whatever the number of deliveries. */
  id: string;
  source: ShipmentEventSource;
  /** `order.status`, `order.waybill_id` or `order.price`; others are recorded and change nothing. */
  type: string;
  partnerStatus?: string | null;
  waybillId?: string | null;
  trackingUrl?: string | null;
  price?: number | null;
}

export type EventOutcome = 'applied' | 'ignored' | 'duplicate';

export interface AppliedEvent {
  outcome: EventOutcome;
  /** The shipment's status after the event. */
  status: ShipmentStatus;
  /** The event gave the shipment its (first or a new) waybill: its label is to be rendered. */
  waybillAssigned: boolean;
}

/**
 * Applies a partner event to a shipment the caller has locked (FOR UPDATE) in `tx`: the event's row is written
 * first, so a second delivery of the same id changes nothing ('duplicate'). A status applies only forward
 * (canMove): partners deliver out of order, and a late `confirmed` must not undo a pickup. No event is emitted:
 * document 1 leaves shipment lifecycle events to the partner.
 */
export async function applyPartnerEvent(tx: Transaction, shipment: Shipment, event: PartnerEvent): Promise<AppliedEvent> {
  const changes: Partial<Pick<Shipment, 'status' | 'cancelledAt' | 'cancellationReason' | 'waybillId' | 'trackingUrl' | 'price' | 'labelKey' | 'labelCreatedAt'>> = {};
  const status = event.type === 'order.status' && event.partnerStatus ? statusFromPartner(event.partnerStatus) : null;
  if (status && canMove(shipment.status, status)) {
    changes.status = status;
    if (status === 'cancelled') {
      changes.cancelledAt = new Date();
      changes.cancellationReason = `Cancelled by the partner (${event.partnerStatus})`;
    }
  }
  const waybillAssigned = Boolean(event.waybillId) && event.waybillId !== shipment.waybillId;
  if (waybillAssigned) {
    changes.waybillId = event.waybillId!;
    // A label shows one waybill: a new one needs a new label.
    changes.labelKey = null;
    changes.labelCreatedAt = null;
  }
  if (event.trackingUrl && event.trackingUrl !== shipment.trackingUrl) changes.trackingUrl = event.trackingUrl;
  if (event.type === 'order.price' && typeof event.price === 'number' && Math.round(event.price) !== shipment.price) changes.price = Math.round(event.price);

  const outcome = Object.keys(changes).length > 0 ? 'applied' : 'ignored';
  const inserted = await recordShipmentEvent(tx, shipment, {
    id: event.id,
    shipmentId: shipment.id,
    source: event.source,
    type: event.type,
    partnerStatus: event.partnerStatus ?? null,
    status,
    outcome,
  });
  if (!inserted) return { outcome: 'duplicate', status: shipment.status, waybillAssigned: false };
  if (outcome === 'applied') await shipment.update(changes, { transaction: tx });
  return { outcome, status: shipment.status, waybillAssigned: waybillAssigned && shipment.status !== 'cancelled' };
}
