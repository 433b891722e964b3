import type { Transaction } from 'sequelize';
import { countCustomerRedemptions } from '../../db/discounts';
import { connectionOf } from '../../db/outbox';
import { DiscountCode, DiscountRedemption } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';

export interface Redemption {
  /** The checkout session or order using the code; redeeming the same reference again counts once. */
  reference: string;
  customerEmail?: string | null;
  customerId?: string | null;
  /** The discount granted, smallest unit. */
  amount: number;
}

export type RedemptionResult = 'applied' | 'MAX_USES_REACHED' | 'CUSTOMER_LIMIT_REACHED';

/**
 * Records one use of a code at checkout completion, inside the caller's transaction. The row lock on the code
 * serialises concurrent redemptions, so the usage limits hold exactly under races; the validity window and
 * the cart were checked when the buyer was quoted and are not re-checked here (docs/decisions/discounts.md).
 */
export async function redeemDiscount(tx: Transaction, tenant: Tenant, discountId: string, redemption: Redemption): Promise<RedemptionResult> {
  const discount = await DiscountCode.findOne({ where: { id: discountId, ...tenantWhere(tenant) }, lock: tx.LOCK.UPDATE, transaction: tx });
  if (!discount) throw notFound('Discount code');
  // A retried completion (Temporal retries activities) finds its own earlier use.
  const earlier = await DiscountRedemption.findOne({ where: { discountId, reference: redemption.reference }, transaction: tx });
  if (earlier) return 'applied';
  if (discount.maxUsesTotal !== null && discount.usesTotal >= discount.maxUsesTotal) return 'MAX_USES_REACHED';
  if (discount.maxUsesPerCustomer !== null) {
    const uses = await countCustomerRedemptions(connectionOf(tx), discountId, redemption, tx);
    if (uses >= discount.maxUsesPerCustomer) return 'CUSTOMER_LIMIT_REACHED';
  }
  await DiscountRedemption.create(
    {
      id: newId('dred'),
      ...tenantWhere(tenant),
      discountId,
      reference: redemption.reference,
      customerEmail: redemption.customerEmail?.toLowerCase() ?? null,
      customerId: redemption.customerId ?? null,
      amount: redemption.amount,
    },
    { transaction: tx },
  );
  await discount.increment('usesTotal', { transaction: tx });
  return 'applied';
}
