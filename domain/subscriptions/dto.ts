import type { Attributes } from 'sequelize';
import type { Subscription } from '../../db/models';

const iso = (date: Date | null | undefined) => (date ? new Date(date).toISOString() : null);

/** Document 2's Subscription, plus `latestInvoiceId` and `testClock` as Stripe shows them. */
export function toSubscriptionDto(row: Attributes<Subscription>) {
  return {
    id: row.id,
    accountId: row.accountId,
    customerId: row.customerId,
    planId: row.planId,
    status: row.status,
    currentPeriodStart: iso(row.currentPeriodStart)!,
    currentPeriodEnd: iso(row.currentPeriodEnd)!,
    trialEnd: iso(row.trialEnd),
    cancelAtPeriodEnd: row.cancelAtPeriodEnd,
    canceledAt: iso(row.canceledAt),
    pausedAt: iso(row.pausedAt),
    failedPaymentCount: row.failedPaymentCount,
    latestInvoiceId: row.latestInvoiceId,
    testClock: row.testClockId,
    metadata: row.metadata,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}

export type SubscriptionDto = ReturnType<typeof toSubscriptionDto>;
