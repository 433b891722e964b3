import type { Sequelize } from 'sequelize';
import { CheckoutSession, type CheckoutStatus } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { createPaymentProviders, type PaymentProviderConfig } from '../../lib/payment-provider';
import { releaseReservations } from '../inventory';
import { checkoutStockOwner } from './create';

/**
 * The session's deadline, acted on by its workflow: under the row lock (so it races neither the buyer's pay nor
 * the merchant's confirm), an `open` session whose `expiresAt` is at or before `now` becomes `expired`, and the
 * stock it reserved is released in the same transaction. Answers
 * the status it leaves either way: `pending_review` (the buyer paid in time: wait for the merchant), `completed`
 * (fulfil), `expired`, or still `open` when called before the deadline.
 */
export async function expireCheckoutIfOpen(sequelize: Sequelize, tenant: Tenant, sessionId: string, now: Date): Promise<CheckoutStatus> {
  return sequelize.transaction(async (tx) => {
    const session = await CheckoutSession.findOne({ where: { id: sessionId, ...tenantWhere(tenant) }, lock: tx.LOCK.UPDATE, transaction: tx });
    if (!session) throw new Error(`checkout session ${sessionId} does not exist in ${tenant.accountId}/${tenant.environment}`);
    if (session.status !== 'open' || session.expiresAt > now) return session.status;
    await session.update({ status: 'expired', expiredAt: now }, { transaction: tx });
    // What the session held goes back to `available` with the status change (whatever the module is now).
    await releaseReservations(tx, tenant, checkoutStockOwner(session.id));
    return session.status;
  });
}

/**
 * A provider-mode session our workflow expired: its provider invoice is expired too, so the buyer can no longer
 * pay a session that will not be fulfilled. Idempotent (an invoice already expired or paid is left as it is: a
 * payment that won the race is refunded by its callback); a provider that does not answer throws, and the
 * activity retries.
 */
export async function expireProviderInvoiceOf(config: PaymentProviderConfig, tenant: Tenant, sessionId: string): Promise<void> {
  const session = await CheckoutSession.findOne({ where: { id: sessionId, ...tenantWhere(tenant) }, attributes: ['id', 'backend', 'environment', 'status', 'providerInvoiceId'] });
  if (session?.backend !== 'provider' || session.status !== 'expired' || !session.providerInvoiceId) return;
  await createPaymentProviders(config).forEnvironment(session.environment).expireInvoice(session.providerInvoiceId);
}
