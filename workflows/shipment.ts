import { condition, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { ShippingActivities } from '../activities/contracts/shipping';
import type { ShipmentState } from '../domain/shipping/states';
import { lifecycleState } from './lifecycle';
import { shipmentWaybillAssigned, type ShipmentOutcome, type ShipmentWorkflowInput } from './messages';

/**
 * Each step is a transaction under the shipment's row lock, safe to repeat, so it is retried until it lands:
 * booking waits out a partner that is down and a workspace that has no origin yet (up to the 10-minute
 * interval, without limit), visible in the Temporal UI meanwhile.
 */
const steps = proxyActivities<ShippingActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

/** How often, and how many times, to look for a waybill the courier gives late (besides the webhook's nudge). */
const WAYBILL_CHECK = '1 day';
const WAYBILL_CHECKS = 30;

/**
 * `shipment:<shp>`: books the shipment with its partner, renders its label once there is a waybill, and, for
 * the local partner, plays its status schedule (confirmed, picked up, in transit, delivered, each after the
 * delay fixed at booking) so a merchant can watch a test shipment move. An HTTP partner's moves arrive by its
 * webhooks instead, and the workflow ends once the label is made. Each move applies only forward, so a
 * merchant's cancel (or a partner event) ends the schedule early.
 */
export async function shipment(input: ShipmentWorkflowInput): Promise<ShipmentOutcome> {
  const lifecycle = lifecycleState<ShipmentState>();
  let nudged = false;
  setHandler(shipmentWaybillAssigned, () => {
    nudged = true;
  });

  lifecycle('booking');
  const booking = await steps.bookShipment(input);
  if (booking.state === 'cancelled') {
    lifecycle('cancelled');
    return 'cancelled';
  }

  for (let check = 0; check <= WAYBILL_CHECKS; check += 1) {
    // Cleared before the look, so a nudge that arrives while it runs is not lost.
    nudged = false;
    if ((await steps.renderShipmentLabel(input)) !== 'no_waybill') break;
    lifecycle('awaiting_waybill');
    await condition(() => nudged, WAYBILL_CHECK);
  }

  if (!booking.schedule) {
    lifecycle('booked');
    return 'booked';
  }
  lifecycle('in_transit');
  for (const step of booking.schedule) {
    await sleep(step.afterMs);
    const status = await steps.advanceLocalShipment({ ...input, partnerStatus: step.partnerStatus });
    if (status === 'cancelled' || status === 'returned') {
      lifecycle(status);
      return status;
    }
  }
  lifecycle('delivered');
  return 'delivered';
}
