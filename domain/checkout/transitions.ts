import type { Sequelize, Transaction } from 'sequelize';
import { CheckoutSession, type PaymentMethod } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { AppError, invalidState, notFound } from '../../lib/errors';
import type { Logger } from '../../lib/logger';
import { recordMetric } from '../../lib/metrics';
import type { Starters } from '../workflow-starters';
import { afterCommit, whenCommitted } from '../../db/request-transaction';
import { recordStart, startRecordedNow } from '../workflow-starts';
import type { PaymentBackend, PaymentSubmission } from './payment-backend';

/**
 * The moves of a session's state machine that requests make (document 2, States): the buyer pays (`open` →
 * `pending_review` in local mode), the merchant confirms (`pending_review` → `completed`). Each runs under the
 * session's row lock, so it races neither the expiry step nor a second request.
 */
export interface TransitionDeps {
  sequelize: Sequelize;
  starters: Starters;
  logger: Logger;
}

/**
 * What a completed session pays in the area that opened it, in the completing transaction: an invoice's session pays
 * its invoice (invoices/settle.ts). Handed in by the caller, as checkout sits below the areas that open sessions.
 */
export type SessionSourceSettler = (tx: Transaction, tenant: Tenant, session: CheckoutSession, now: Date) => Promise<unknown>;

const stateConflict = (session: CheckoutSession, wanted: string) =>
  invalidState(`This checkout session is ${session.status}; ${wanted}`);

/**
 * The buyer picks a method. Refused: a method outside the session's allowed set (`400 VALIDATION_ERROR`), a
 * session that is not `open` or whose `expiresAt` passed (`409 INVALID_STATE`, even before the expiry step ran).
 */
export async function payCheckoutSession(
  deps: TransitionDeps,
  backend: PaymentBackend,
  sessionId: string,
  method: PaymentMethod,
  now = new Date(),
): Promise<{ session: CheckoutSession; submission: PaymentSubmission }> {
  const result = await deps.sequelize.transaction(async (tx) => {
    const session = await CheckoutSession.findByPk(sessionId, { lock: tx.LOCK.UPDATE, transaction: tx });
    if (!session) throw notFound('Checkout session');
    if (!session.paymentMethods.includes(method)) {
      throw new AppError('VALIDATION_ERROR', `paymentMethod must be one of this session's methods: ${session.paymentMethods.join(', ')}`, [
        { field: 'paymentMethod', message: `one of ${session.paymentMethods.join(', ')}` },
      ]);
    }
    if (session.status !== 'open') throw stateConflict(session, 'only an open session can be paid');
    if (session.expiresAt <= now) throw invalidState('This checkout session has expired');
    const submission = await backend.submitPayment(tx, session, method);
    return { session, submission };
  });
  if (result.submission.status === 'pending_review') {
    // Only lets an operator see "awaiting confirmation" at once; the workflow reads the row at its deadline.
    await afterCommit(() =>
      deps.starters.checkoutPaymentSubmitted(sessionId).catch((err: unknown) => deps.logger.warn({ err, sessionId }, 'could not signal the paid session')),
    );
  }
  return result;
}

/**
 * Marks a session `completed` (the merchant saw the transfer, or a provider's callback) and records, in the same
 * transaction, the signal that wakes its workflow for fulfillment: a crash after the commit delays fulfillment,
 * never loses it. The invoice the session collects, if any, is paid in the same transaction. `from` is the
 * status the caller may complete.
 */
export async function completeCheckoutSession(
  deps: TransitionDeps,
  tenant: Tenant,
  sessionId: string,
  { from, settleSource, now = new Date() }: { from: 'pending_review' | 'open'; settleSource: SessionSourceSettler; now?: Date },
): Promise<CheckoutSession> {
  const { session, workflowId } = await deps.sequelize.transaction(async (tx) => {
    const session = await CheckoutSession.findOne({ where: { id: sessionId, ...tenantWhere(tenant) }, lock: tx.LOCK.UPDATE, transaction: tx });
    if (!session) throw notFound('Checkout session');
    if (session.status !== from) throw stateConflict(session, `only a ${from} session can be completed`);
    return { session, workflowId: await completeLockedSession(tx, tenant, session, now, settleSource) };
  });
  await startRecordedNow(deps, workflowId);
  return session;
}

/**
 * The completion itself, on a session the caller locked in `tx` and found completable: the merchant's confirm
 * above and the provider's payment callback take this one path, so fulfillment is signalled the same way, once.
 * Answers the recorded start to make after commit.
 */
export async function completeLockedSession(
  tx: Transaction,
  tenant: Tenant,
  session: CheckoutSession,
  now: Date,
  settleSource: SessionSourceSettler,
  paid: Partial<Pick<CheckoutSession, 'paymentMethod' | 'paidAt'>> = {},
): Promise<string> {
  await session.update({ status: 'completed', completedAt: now, ...paid }, { transaction: tx });
  await settleSource(tx, tenant, session, now);
  whenCommitted(tx, () => recordMetric.checkoutCompleted({ environment: tenant.environment, backend: session.backend }));
  return recordStart(tx, tenant, {
    workflowType: 'checkoutCompleted',
    input: { ...tenantWhere(tenant), sessionId: session.id, expiresAt: session.expiresAt.toISOString() },
  });
}
