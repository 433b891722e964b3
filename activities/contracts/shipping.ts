import type { ShipmentStatus } from '../../lib/shipping/events';
import type { ShipmentBookingResult, ShipmentLabelResult, ShipmentWorkflowInput } from '../../workflows/messages';

/** The shipment workflow's activities (activities/shipping.ts). */
export type ShippingActivities = {
  bookShipment(input: ShipmentWorkflowInput): Promise<ShipmentBookingResult>;
  renderShipmentLabel(input: ShipmentWorkflowInput): Promise<ShipmentLabelResult>;
  advanceLocalShipment(input: ShipmentWorkflowInput & { partnerStatus: string }): Promise<ShipmentStatus>;
};
