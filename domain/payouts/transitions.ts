import type { Sequelize, Transaction } from 'sequelize';
import { appendLedgerEntry } from '../../db/ledger';
import { Payout } from '../../db/models';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { AppError, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { Logger } from '../../lib/logger';
import type { Starters } from '../workflow-starters';
import { recordStart, startRecordedNow } from '../workflow-starts';
import { PAYOUT_MOVE_FROM } from './states';

/**
 * The moves of a payout's state machine (document 2, States: Payout). Each runs under the payout's row lock and
 * commits, in one transaction, the new status with its stamp, the ledger row that returns the amount (failed,
 * canceled) and the durable signal that tells the payout's workflow: the row, the balance and the workflow never
 * tell different stories, and a move refused (409 naming the current status) changes nothing.
 */
export type PayoutMove =
  | { to: 'in_transit'; reference?: string }
  | { to: 'paid'; reference?: string }
  | { to: 'failed'; failureReason: string }
  | { to: 'cancelled' };

export interface TransitionDeps {
  sequelize: Sequelize;
  starters: Starters;
  logger: Logger;
}

/**
 * The only moves are the state machine's (states.ts): `pending` → `paid` or `failed` directly is refused
 * (docs/decisions/payouts.md). The mark routes are the manual backend's; a provider's payout follows the provider's
 * callbacks instead.
 */
const RULES: Record<PayoutMove['to'], { marked: boolean; done: string }> = {
  in_transit: { marked: true, done: 'marked in transit' },
  paid: { marked: true, done: 'marked paid' },
  failed: { marked: true, done: 'marked failed' },
  cancelled: { marked: false, done: 'cancelled' },
};

function changesOf(move: PayoutMove, now: Date): Partial<Payout> {
  switch (move.to) {
    case 'in_transit':
      return { status: 'in_transit', inTransitAt: now, ...(move.reference !== undefined ? { reference: move.reference } : {}) };
    case 'paid':
      return { status: 'paid', paidAt: now, ...(move.reference !== undefined ? { reference: move.reference } : {}) };
    case 'failed':
      return { status: 'failed', failedAt: now, failureReason: move.failureReason };
    case 'cancelled':
      return { status: 'cancelled', cancelledAt: now };
  }
}

export async function movePayout(deps: TransitionDeps, tenant: Tenant, payoutId: string, move: PayoutMove, now = new Date()): Promise<Payout> {
  const { payout, workflowId } = await deps.sequelize.transaction(async (tx) => {
    const payout = await Payout.findOne({ where: { id: payoutId, ...tenantWhere(tenant) }, lock: tx.LOCK.UPDATE, transaction: tx });
    if (!payout) throw notFound('Payout');
    const rule = RULES[move.to];
    if (rule.marked && payout.backend !== 'manual') {
      throw new AppError('INVALID_STATE', 'This payout is paid out by the payment provider: its status follows the provider, not the mark routes', {
        status: payout.status,
        backend: payout.backend,
      });
    }
    const from = PAYOUT_MOVE_FROM[move.to];
    if (payout.status !== from) {
      throw new AppError('INVALID_STATE', `This payout is ${payout.status}; only ${from === 'pending' ? 'a' : 'an'} ${from} payout can be ${rule.done}`, {
        status: payout.status,
      });
    }
    return { payout, workflowId: await applyPayoutMove(tx, tenant, payout, move, now) };
  });
  await startRecordedNow(deps, workflowId);
  return payout;
}

/** Whether `move` may follow the payout's status (the table above), whoever makes it. */
export const canMovePayout = (payout: Pick<Payout, 'status'>, move: PayoutMove) => payout.status === PAYOUT_MOVE_FROM[move.to];

/**
 * A move on a payout the caller locked in `tx` and checked (`canMovePayout`): the mark routes above and the
 * provider's disbursement callbacks take this one path. Answers the recorded signal to send after commit.
 */
export async function applyPayoutMove(tx: Transaction, tenant: Tenant, payout: Payout, move: PayoutMove, now: Date): Promise<string> {
  await payout.update(changesOf(move, now), { transaction: tx });
  if (move.to === 'failed' || move.to === 'cancelled') {
    await appendLedgerEntry(tx, tenant, {
      id: newId('txn'),
      type: 'payout_return',
      sourceId: payout.id,
      currency: payout.currency,
      pendingDelta: 0,
      availableDelta: payout.amount,
    });
  }
  return recordStart(tx, tenant, { workflowType: 'payoutMoved', input: { ...tenantWhere(tenant), payoutId: payout.id, status: move.to } });
}
