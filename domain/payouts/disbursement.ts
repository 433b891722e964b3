import type { Sequelize } from 'sequelize';
import { Payout } from '../../db/models';
import { emit } from '../../db/outbox';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import type { Config } from '../../lib/config';
import type { CryptoBox } from '../../lib/crypto-box';
import type { Logger } from '../../lib/logger';
import { createPaymentProviders, ProviderError } from '../../lib/payment-provider';
import type { DisbursementSubmission } from '../../workflows/messages';
import { toPayoutDto } from './dto';
import { applyPayoutMove } from './transitions';

export interface DisbursementDeps {
  sequelize: Sequelize;
  config: Config;
  box: CryptoBox;
  logger: Logger;
}

/** The payout row is gone: nothing to submit, and asking again will not bring it back. */
export class PayoutMissingError extends Error {}

/**
 * A provider payout's first step (docs/decisions/payment-module.md, Payouts): submits its disbursement at the
 * provider and moves it `pending` → `in_transit` with `payout.initiated`. The call is made under the payout's row
 * lock, so a cancel either lands before it (nothing is submitted) or waits for it (and finds the payout in transit:
 * 409); the payout id is the disbursement's external id and idempotency key, so a retry after a lost answer or a
 * failed commit gets the same disbursement, never a second one. A provider that refuses the disbursement (a bank
 * code it does not know) fails the payout at once, its amount back to `available`, with `payout.failed`; one that
 * does not answer throws, and the workflow asks again. A payout already submitted, canceled or of the manual
 * backend is left as it is. Answers the payout's status.
 */
export async function submitPayoutDisbursement(deps: DisbursementDeps, tenant: Tenant, payoutId: string, now = new Date()): Promise<DisbursementSubmission> {
  const { sequelize, box, logger } = deps;
  return sequelize.transaction(async (tx) => {
    const payout = await Payout.findOne({ where: { id: payoutId, ...tenantWhere(tenant) }, lock: tx.LOCK.UPDATE, transaction: tx });
    if (!payout) throw new PayoutMissingError(`payout ${payoutId} does not exist`);
    if (payout.backend !== 'provider' || payout.status !== 'pending' || payout.providerDisbursementId) return { status: payout.status };
    const provider = createPaymentProviders(deps.config).forEnvironment(tenant.environment);
    let disbursement;
    try {
      disbursement = await provider.createDisbursement({
        externalId: payout.id,
        amount: Number(payout.amount),
        currency: payout.currency,
        bankCode: payout.bankCode ?? '',
        accountHolderName: payout.bankAccountHolder,
        accountNumber: box.open(payout.bankAccountNumberSealed),
        description: payout.note ?? `Payout ${payout.id}`,
      });
    } catch (err) {
      if (!(err instanceof ProviderError) || err.kind !== 'refused') throw err;
      logger.warn({ payoutId: payout.id, code: err.code, status: err.status }, 'the payment provider refused the disbursement: payout failed');
      // Through in_transit, as every failed payout goes (its stamps say so): handed over and refused at the same moment.
      await applyPayoutMove(tx, tenant, payout, { to: 'in_transit' }, now);
      await applyPayoutMove(tx, tenant, payout, { to: 'failed', failureReason: err.code ?? 'REFUSED_BY_PROVIDER' }, now);
      await emit(tx, tenant, 'payout.failed', toPayoutDto(payout.get(), box));
      return { status: 'failed' };
    }
    await payout.update({ providerDisbursementId: disbursement.id }, { transaction: tx });
    await applyPayoutMove(tx, tenant, payout, { to: 'in_transit', reference: disbursement.id }, now);
    await emit(tx, tenant, 'payout.initiated', toPayoutDto(payout.get(), box));
    return { status: 'in_transit' };
  });
}
