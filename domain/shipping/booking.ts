import { Readable } from 'node:stream';
import type { Sequelize, Transaction } from 'sequelize';
import { Shipment, ShippingOrigin } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import type { Config } from '../../lib/config';
import type { BlobStorage } from '../../lib/storage';
import type { ShippingPartners } from '../../lib/shipping';
import { LOCAL_PARTNER_STEPS, TERMINAL, type ShipmentStatus } from '../../lib/shipping/events';
import { LOCAL_COURIERS } from '../../lib/shipping/local-catalogue';
import { PartnerError } from '../../lib/shipping/types';
import type { ShipmentBookingResult, ShipmentLabelResult } from '../../workflows/messages';
import { placeOf } from './dto';
import { applyPartnerEvent } from './events';

export interface BookingDeps {
  sequelize: Sequelize;
  config: Pick<Config, 'SHIPPING_LOCAL_SCHEDULE'>;
  storage: BlobStorage;
  partners: ShippingPartners;
}

/** Where a shipment's label lives in blob storage. */
export const labelKeyOf = (shipment: Pick<Shipment, 'accountId' | 'id'>) => `shipping-labels/${shipment.accountId}/${shipment.id}.pdf`;

/** Each step of the `shipment:shp_…` workflow: one transaction, under the shipment's row lock, repeatable. */
export function createShipmentSteps({ sequelize, config, storage, partners }: BookingDeps) {
  const locked = (tx: Transaction, tenant: Tenant, shipmentId: string) =>
    Shipment.findOne({ where: { id: shipmentId, ...tenantWhere(tenant) }, lock: tx.LOCK.UPDATE, transaction: tx });

  async function mustLock(tx: Transaction, tenant: Tenant, shipmentId: string): Promise<Shipment> {
    const shipment = await locked(tx, tenant, shipmentId);
    if (!shipment) throw new Error(`shipment ${shipmentId} does not exist in ${tenant.accountId}/${tenant.environment}`);
    return shipment;
  }

  const schedule = () => LOCAL_PARTNER_STEPS.map((step, i) => ({ partnerStatus: step.partnerStatus, afterMs: config.SHIPPING_LOCAL_SCHEDULE[i]! }));

  return {
    /**
     * Books the shipment with its environment's partner, holding the row lock across the call so a cancel waits
     * for the answer (and a booking never races a cancel). A second run finds it booked and answers the same.
     * Without an origin (none set at checkout, none since) it fails, to be retried: the shipment stays
     * `pending` until the merchant sets one. A refusal (the service does not serve this route) cancels it.
     */
    async bookShipment(tenant: Tenant, shipmentId: string): Promise<ShipmentBookingResult> {
      return sequelize.transaction(async (tx) => {
        const shipment = await mustLock(tx, tenant, shipmentId);
        if (shipment.status === 'cancelled') return { state: 'cancelled' };
        if (shipment.partner) {
          return { state: 'booked', partner: shipment.partner, waybillId: shipment.waybillId, schedule: shipment.partner === 'local' ? schedule() : null };
        }
        let origin = shipment.origin;
        if (!origin) {
          const current = await ShippingOrigin.findOne({ where: tenantWhere(tenant), transaction: tx });
          if (!current) throw new Error(`shipment ${shipmentId} waits for a ship-from origin (PATCH /v1/shipping/origin)`);
          origin = placeOf(current);
        }
        const partner = partners.forEnvironment(tenant.environment);
        let booking;
        try {
          booking = await partner.createShipment({
            reference: shipment.id,
            courierCode: shipment.courierCode,
            courierServiceCode: shipment.courierServiceCode,
            origin,
            destination: shipment.destination,
            items: shipment.items,
            insurance: shipment.insurance,
          });
        } catch (err) {
          if (!(err instanceof PartnerError) || err.kind !== 'refused') throw err;
          await shipment.update({ origin, status: 'cancelled', cancelledAt: new Date(), cancellationReason: `Refused by the shipping partner: ${err.message}`.slice(0, 500) }, { transaction: tx });
          return { state: 'cancelled' };
        }
        await shipment.update(
          {
            origin,
            partner: partner.name,
            partnerOrderId: booking.orderId,
            waybillId: booking.waybillId,
            trackingUrl: booking.trackingUrl,
            price: booking.price,
            currency: booking.currency,
            bookedAt: new Date(),
          },
          { transaction: tx },
        );
        if (booking.status) await applyPartnerEvent(tx, shipment, { id: `booking:${shipment.id}`, source: 'booking', type: 'order.status', partnerStatus: booking.status });
        return { state: 'booked', partner: partner.name, waybillId: shipment.waybillId, schedule: partner.name === 'local' ? schedule() : null };
      });
    },

    /**
     * Renders the label once the shipment has a waybill, stores it, and records its key. The blob is written
     * under a key of its own before the row says so, so a crash in between leaves a blob that the next run
     * overwrites, never a row pointing at nothing.
     */
    async renderShipmentLabel(tenant: Tenant, shipmentId: string): Promise<ShipmentLabelResult> {
      const shipment = await Shipment.findOne({ where: { id: shipmentId, ...tenantWhere(tenant) } });
      if (!shipment) throw new Error(`shipment ${shipmentId} does not exist in ${tenant.accountId}/${tenant.environment}`);
      if (shipment.labelKey) return 'rendered';
      if (shipment.status === 'cancelled' || !shipment.partner) return 'closed';
      if (!shipment.waybillId) return TERMINAL.includes(shipment.status) ? 'closed' : 'no_waybill';
      const courier = LOCAL_COURIERS.find((c) => c.code === shipment.courierCode);
      const pdf = await partners.named(shipment.partner, tenant.environment).label({
        shipmentId: shipment.id,
        waybillId: shipment.waybillId,
        courierName: courier?.name ?? shipment.courierCode.toUpperCase(),
        serviceName: courier?.services.find((s) => s.code === shipment.courierServiceCode)?.name ?? shipment.courierServiceCode,
        origin: shipment.origin,
        destination: shipment.destination,
        items: shipment.items,
        reference: shipment.externalRef,
        createdAt: shipment.bookedAt ?? shipment.createdAt,
      });
      const key = labelKeyOf(shipment);
      await storage.put(key, Readable.from([pdf]));
      return sequelize.transaction(async (tx) => {
        const row = await mustLock(tx, tenant, shipmentId);
        // A webhook may have replaced the waybill meanwhile: that label is for the next run.
        if (row.waybillId !== shipment.waybillId) return 'no_waybill';
        if (!row.labelKey) await row.update({ labelKey: key, labelCreatedAt: new Date() }, { transaction: tx });
        return 'rendered';
      });
    },

    /** One simulated move of the local partner, applied as the partner's event would be; answers the status after it. */
    async advanceLocalShipment(tenant: Tenant, shipmentId: string, partnerStatus: string): Promise<ShipmentStatus> {
      return sequelize.transaction(async (tx) => {
        const shipment = await mustLock(tx, tenant, shipmentId);
        const applied = await applyPartnerEvent(tx, shipment, { id: `local:${shipment.id}:${partnerStatus}`, source: 'local_partner', type: 'order.status', partnerStatus });
        return applied.status;
      });
    },
  };
}

export type ShipmentSteps = ReturnType<typeof createShipmentSteps>;
