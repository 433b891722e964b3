import type { Transaction } from 'sequelize';
import { ManualOrder, type ManualFulfillmentStatus, type ManualPaymentStatus } from '../../db/models';
import { audit } from '../../db/outbox';
import { listPage, type PageRequest } from '../../db/pagination';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { notFound } from '../../lib/errors';
import { auditActor, stockActor, type AuthContext } from '../auth-context';
import { redeemDiscount } from '../discounts';
import { createEmailQueue } from '../email';
import { recordReferralConversion } from '../referrals';
import type { ServiceDeps } from '../service-deps';
import { recordStart, startRecordedNow } from '../workflow-starts';
import { buyerNameOf, toManualOrderDto, toManualOrderListDto, type ManualOrderDto } from './dto';
import { needsFulfillment } from './fulfillment-plan';
import type { UpdateManualOrderBody } from './inputs';
import { commitReservations, releaseReservations } from '../inventory';
import { planOrderUpdate } from './transitions';

/** The list filters of GET /v1/manual-orders. */
export interface ManualOrderListQuery extends PageRequest {
  paymentStatus?: ManualPaymentStatus;
  fulfillmentStatus?: ManualFulfillmentStatus;
}

/** Manual orders (secret key): list, retrieve and the merchant's moves. No events (document 1 names none). */
export function createManualOrderService(deps: Pick<ServiceDeps, 'sequelize' | 'config' | 'box' | 'starters' | 'logger'>) {
  const { sequelize } = deps;
  const emails = createEmailQueue(deps);

  /**
   * What a confirmation causes, in its transaction: the code's use is counted (the buyer keeps the price
   * quoted even if the code ran out of uses since), the referral's conversion, the buyer's e-mail, and the
   * durable start of the paid-checkout fulfillment for digital or licence lines.
   */
  async function onConfirmed(tx: Transaction, tenant: Tenant, order: ManualOrder): Promise<string[]> {
    if (order.discountId) {
      const redemption = await redeemDiscount(tx, tenant, order.discountId, {
        reference: order.id,
        customerEmail: order.customerEmail,
        amount: order.discountAmount,
      });
      await order.update({ discountApplied: redemption === 'applied' }, { transaction: tx });
    }
    if (order.referralCode) await recordReferralConversion(tx, tenant, order.referralCode);
    const started: string[] = [];
    const mail = await emails.queue(tx, tenant, {
      kind: 'payment_confirmed',
      businessKey: `payment_confirmed:${order.id}`,
      to: order.customerEmail,
      data: { buyerName: buyerNameOf(order), orderNumber: order.orderNumber, currency: order.currency, amount: order.amount },
    });
    if (mail.workflowId) started.push(mail.workflowId);
    if (order.lines.some(needsFulfillment)) {
      started.push(await recordStart(tx, tenant, { workflowType: 'manualOrder', input: { ...tenantWhere(tenant), orderId: order.id } }));
    }
    return started;
  }

  async function onShipped(tx: Transaction, tenant: Tenant, order: ManualOrder): Promise<string[]> {
    const mail = await emails.queue(tx, tenant, {
      kind: 'shipping_notification',
      businessKey: `shipping_notification:${order.id}`,
      to: order.customerEmail,
      data: {
        buyerName: buyerNameOf(order),
        orderNumber: order.orderNumber,
        courier: order.trackingCourier ?? undefined,
        trackingNumber: order.trackingNumber ?? undefined,
      },
    });
    return mail.workflowId ? [mail.workflowId] : [];
  }

  return {
    /** Newest first by placedAt (the time-ordered id), with either status filter. */
    list(auth: AuthContext, query: ManualOrderListQuery) {
      return listPage(sequelize, ManualOrder, {
        tenant: auth,
        where: {
          ...(query.paymentStatus ? { paymentStatus: query.paymentStatus } : {}),
          ...(query.fulfillmentStatus ? { fulfillmentStatus: query.fulfillmentStatus } : {}),
        },
        page: query,
        idPrefix: 'mord',
        toDto: toManualOrderListDto,
      });
    },

    async retrieve(auth: AuthContext, id: string): Promise<ManualOrderDto> {
      const order = await ManualOrder.findOne({ where: { id, ...tenantWhere(auth) } });
      if (!order) throw notFound('Manual order');
      return toManualOrderDto(order.get());
    },

    /**
     * One PATCH under the order's row lock: two concurrent confirmations serialise, and the second finds the
     * order confirmed and is refused, so the buyer is mailed and fulfilled once. A refused move writes nothing.
     */
    async update(auth: Pick<AuthContext, 'accountId' | 'environment' | 'apiKeyId' | 'userId'>, id: string, input: UpdateManualOrderBody): Promise<ManualOrderDto> {
      const tenant = tenantWhere(auth);
      const { order, starts } = await sequelize.transaction(async (tx) => {
        const order = await ManualOrder.findOne({ where: { id, ...tenant }, lock: tx.LOCK.UPDATE, transaction: tx });
        if (!order) throw notFound('Manual order');
        const before = { paymentStatus: order.paymentStatus, fulfillmentStatus: order.fulfillmentStatus };
        const plan = planOrderUpdate(order, input, new Date());
        order.set(plan.fields);
        order.changed('updatedAt', true);
        await order.save({ transaction: tx });
        const stockOwner = { reference: order.id, actor: stockActor(auth) };
        if (plan.confirmed) await commitReservations(tx, tenant, stockOwner);
        if (plan.fields.paymentStatus === 'canceled') await releaseReservations(tx, tenant, stockOwner);
        const starts = [...(plan.confirmed ? await onConfirmed(tx, tenant, order) : []), ...(plan.shipped ? await onShipped(tx, tenant, order) : [])];
        await audit(tx, tenant, {
          action: 'manual_order.updated',
          ...auditActor(auth),
          targetType: 'manual_order',
          targetId: order.id,
          data: { fields: Object.keys(input), from: before, to: { paymentStatus: order.paymentStatus, fulfillmentStatus: order.fulfillmentStatus } },
        });
        return { order, starts };
      });
      for (const workflowId of starts) await startRecordedNow(deps, workflowId);
      return toManualOrderDto(order.get());
    },
  };
}

export type ManualOrderService = ReturnType<typeof createManualOrderService>;
