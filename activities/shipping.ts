import type { Sequelize } from 'sequelize';
import type { Config } from '../lib/config';
import { createShippingPartners } from '../lib/shipping';
import type { ShipmentStatus } from '../lib/shipping/events';
import type { BlobStorage } from '../lib/storage';
import { createShipmentSteps } from '../domain/shipping';
import type { ShipmentBookingResult, ShipmentLabelResult, ShipmentWorkflowInput } from '../workflows/messages';
import type { ShippingActivities } from './contracts/shipping';

/** The `shipment:shp_…` workflow's steps (domain/shipping/booking.ts); each one is safe to repeat. */
export function createShippingActivities({ sequelize, config, storage }: { sequelize: Sequelize; config: Config; storage: BlobStorage }): ShippingActivities {
  const steps = createShipmentSteps({ sequelize, config, storage, partners: createShippingPartners(config) });
  return {
    bookShipment(input: ShipmentWorkflowInput): Promise<ShipmentBookingResult> {
      return steps.bookShipment(input, input.shipmentId);
    },
    renderShipmentLabel(input: ShipmentWorkflowInput): Promise<ShipmentLabelResult> {
      return steps.renderShipmentLabel(input, input.shipmentId);
    },
    advanceLocalShipment(input: ShipmentWorkflowInput & { partnerStatus: string }): Promise<ShipmentStatus> {
      return steps.advanceLocalShipment(input, input.shipmentId, input.partnerStatus);
    },
  };
}
