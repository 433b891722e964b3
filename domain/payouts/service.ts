import { Op } from 'sequelize';
import { debitAvailable, readBalances } from '../../db/ledger';
import { Payout, PayoutBankAccount, type PayoutStatus } from '../../db/models';
import { listPage, type PageRequest } from '../../db/pagination';
import { balanceCurrencies, insertPayout, readPayoutCreateContext, upsertBankAccount, type PayoutCreateContext } from '../../db/payouts';
import { tenantWhere, type Tenant } from '../../db/tenancy';
import { AppError, invalidState, notFound, validationError, type ErrorDetail } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { AuthContext } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import { recordStart, startRecordedNow } from '../workflow-starts';
import { toBalanceDto, toBankAccountDto, toPayoutDto, type BalanceDto, type BankAccountDto, type PayoutDto } from './dto';
import type { CreatePayoutBody, MarkPayoutFailedBody, MarkPayoutInTransitBody, MarkPayoutPaidBody, UpdateBankAccountBody } from './inputs';
import { movePayout, type PayoutMove } from './transitions';

/** The list filters of GET /v1/payouts. */
export interface PayoutListQuery extends PageRequest {
  status?: PayoutStatus;
}

type SnapshotFields = Pick<Payout, 'bankCode' | 'bankName' | 'bankAccountNumberSealed' | 'bankAccountHolder'>;

const OVERRIDE_FIELDS = ['bankName', 'bankAccountNumber', 'bankAccountHolder'] as const;

/**
 * What a dashboard form saw when it was shown: the newest payout of the workspace's mode then (null: none). A
 * payout is requested only while that still holds, so a form sent twice requests once.
 */
export interface PayoutsSeen {
  latestPayoutId: string | null;
}

const insufficient = (currency: string, available: number) =>
  new AppError('INSUFFICIENT_BALANCE', `The amount is more than the ${available} available in ${currency}`, { currency, available });

/** Payouts (secret key): the balance, the bank account, and payouts with their moves (docs/decisions/payouts.md). */
export function createPayoutService({ sequelize, box, starters, logger }: Pick<ServiceDeps, 'sequelize' | 'box' | 'starters' | 'logger'>) {
  const transitionDeps = { sequelize, starters, logger };

  /**
   * The bank account a new payout snapshots: the request's one-off override (the three required fields together,
   * so a one-off number is never paired with the configured holder), else the configured account.
   */
  function snapshotOf(body: CreatePayoutBody, configured: PayoutCreateContext['bankAccount']): SnapshotFields {
    const given = OVERRIDE_FIELDS.filter((field) => body[field] !== undefined);
    if (given.length === 0 && body.bankCode === undefined) {
      if (!configured) throw new AppError('BANK_ACCOUNT_NOT_SET', 'No bank account is configured (PATCH /v1/payouts/bank-account) and the request names none');
      return configured;
    }
    const missing: ErrorDetail[] = OVERRIDE_FIELDS.filter((field) => body[field] === undefined).map((field) => ({
      field,
      message: 'required with the other bank fields: a one-off bank account is given whole',
    }));
    if (missing.length > 0) throw validationError(`${missing[0]!.field}: ${missing[0]!.message}`, missing);
    return {
      bankCode: body.bankCode ?? null,
      bankName: body.bankName!,
      bankAccountNumberSealed: box.seal(body.bankAccountNumber!),
      bankAccountHolder: body.bankAccountHolder!,
    };
  }

  async function move(auth: AuthContext, id: string, payoutMove: PayoutMove): Promise<PayoutDto> {
    const payout = await movePayout(transitionDeps, tenantWhere(auth), id, payoutMove);
    return toPayoutDto(payout.get(), box);
  }

  return {
    /** One balance per currency the workspace has sold in (a balance row exists from its first credit), by currency. */
    async balance(auth: AuthContext): Promise<BalanceDto[]> {
      const rows = await sequelize.transaction((tx) => readBalances(tx, tenantWhere(auth)));
      return rows.map((row) => toBalanceDto(auth.accountId, row));
    },

    /** Null until the first PATCH. */
    async bankAccount(auth: AuthContext): Promise<BankAccountDto | null> {
      const row = await PayoutBankAccount.findOne({ where: tenantWhere(auth) });
      return row ? toBankAccountDto(row.get(), box) : null;
    },

    /** Replaces the account whole; `bankCode` is required while the payment module is on (the provider needs it). */
    async updateBankAccount(auth: AuthContext, body: UpdateBankAccountBody): Promise<BankAccountDto> {
      if (auth.account.paymentEnabled && !body.bankCode) {
        throw validationError('bankCode: required while the payment module is on', [{ field: 'bankCode', message: 'required in provider mode' }]);
      }
      const row = await upsertBankAccount(sequelize, tenantWhere(auth), {
        bankCode: body.bankCode ?? null,
        bankName: body.bankName,
        bankAccountNumberSealed: box.seal(body.bankAccountNumber),
        bankAccountHolder: body.bankAccountHolder,
      });
      return toBankAccountDto(row, box);
    },

    /**
     * Checks, in order: the currency has a balance (400), a bank account to pay to (409 BANK_ACCOUNT_NOT_SET, or
     * 400 for a partial override), the amount is available (409 INSUFFICIENT_BALANCE). The amount then leaves
     * `available` in the creating transaction, checked again there under the balance row's lock, so concurrent
     * payouts can never take more than there is; the payout's workflow start is recorded with it. With `seen`, a
     * payout in the currency requested since (read under that lock, where requests of a currency queue) refuses it.
     */
    async create(auth: AuthContext, body: CreatePayoutBody, seen?: PayoutsSeen): Promise<PayoutDto> {
      const tenant: Tenant = tenantWhere(auth);
      const { currency, amount } = body;
      const context = await readPayoutCreateContext(sequelize, tenant, currency);
      if (context.available === null) {
        const held = await balanceCurrencies(sequelize, tenant);
        const message = held.length > 0 ? `the workspace has a balance only in ${held.join(', ')}` : 'the workspace has no balance yet';
        throw validationError(`currency: no balance in ${currency}; ${message}`, [{ field: 'currency', message }]);
      }
      const snapshot = snapshotOf(body, context.bankAccount);
      // Fixed now: a payout finishes on the backend it started on, whatever the module says later.
      const backend = auth.account.paymentEnabled ? 'provider' : 'manual';
      if (backend === 'provider' && !snapshot.bankCode) {
        throw validationError('bankCode: the payment provider needs the bank code (set it on the bank account or give it with the one-off account)', [{ field: 'bankCode', message: 'required in provider mode' }]);
      }
      if (amount > context.available) throw insufficient(currency, context.available);
      const id = newId('pout');
      const { row, workflowId } = await sequelize.transaction(async (tx) => {
        const row = await insertPayout(tx, { id, ...tenant, backend, amount, currency, ...snapshot, note: body.note ?? null });
        const workflowId = await recordStart(tx, tenant, { workflowType: 'payout', input: { ...tenant, payoutId: id, ...(backend === 'provider' ? { backend } : {}) } });
        // Last, so the balance row stays locked only from this statement to the commit.
        if (!(await debitAvailable(tx, tenant, { id: newId('txn'), type: 'payout', sourceId: id, currency, amount }))) {
          const [balance] = (await readBalances(tx, tenant)).filter((b) => b.currency === currency);
          throw insufficient(currency, balance?.available ?? 0);
        }
        if (seen) {
          const since = { [Op.ne]: id, ...(seen.latestPayoutId ? { [Op.gt]: seen.latestPayoutId } : {}) };
          if (await Payout.findOne({ where: { ...tenant, currency, id: since }, attributes: ['id'], transaction: tx })) {
            throw invalidState('A payout was requested since this form was opened; nothing was requested now. Check the history before requesting again');
          }
        }
        return { row, workflowId };
      });
      await startRecordedNow(transitionDeps, workflowId);
      return toPayoutDto(row, box);
    },

    list(auth: AuthContext, query: PayoutListQuery) {
      return listPage(sequelize, Payout, {
        tenant: auth,
        where: query.status === undefined ? {} : { status: query.status },
        page: query,
        idPrefix: 'pout',
        toDto: (row) => toPayoutDto(row, box),
      });
    },

    async retrieve(auth: AuthContext, id: string): Promise<PayoutDto> {
      const row = await Payout.findOne({ where: { id, ...tenantWhere(auth) } });
      if (!row) throw notFound('Payout');
      return toPayoutDto(row.get(), box);
    },

    cancel: (auth: AuthContext, id: string) => move(auth, id, { to: 'cancelled' }),
    markInTransit: (auth: AuthContext, id: string, body: MarkPayoutInTransitBody) => move(auth, id, { to: 'in_transit', ...body }),
    markPaid: (auth: AuthContext, id: string, body: MarkPayoutPaidBody) => move(auth, id, { to: 'paid', ...body }),
    markFailed: (auth: AuthContext, id: string, body: MarkPayoutFailedBody) => move(auth, id, { to: 'failed', ...body }),
  };
}

export type PayoutService = ReturnType<typeof createPayoutService>;
