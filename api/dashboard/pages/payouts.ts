import type { Request, Response } from 'express';
import type { PayoutStatus } from '../../../db/models';
import { CreatePayoutBody, UpdateBankAccountBody } from '../../../domain/payouts';
import { AppError } from '../../../lib/errors';
import { CURRENCY_EXPONENTS, formatMoney } from '../../../lib/money';
import { engine } from '../../pages/shared/render';
import { majorUnits, smallestUnits } from '../amounts';
import { formField, identityOf } from '../session';
import { fieldErrorOfAppError, fieldErrorsOf, queryText, type FieldErrors, type FormValues, type PageKit } from './kit';
import { PAYOUTS } from './payouts-templates';

const BODY = engine.compile(PAYOUTS);

export const PAYOUT_NOTICES: Record<string, string> = {
  'payout-requested': 'Payout requested. The amount has left the available balance; its status is in the history below.',
  'bank-account-saved': 'Bank account saved. New payouts are paid to it.',
};

const PAGE_SIZE = 50;
const BANK_FIELDS = ['bankName', 'bankCode', 'bankAccountHolder', 'bankAccountNumber'] as const;
const REQUIRED_BANK_FIELDS = { bankName: 'bank’s name', bankAccountHolder: 'account holder’s name', bankAccountNumber: 'account number' };

const payoutTone = (status: PayoutStatus) => (status === 'paid' ? 'good' : status === 'failed' || status === 'cancelled' ? 'bad' : 'wait');
/** An account number on a page: its last four characters only. */
const endingOf = (number: string) => `…${number.replace(/[^0-9A-Za-z]/g, '').slice(-4)}`;

interface PayoutsPageState {
  status: number;
  payoutForm?: FormValues;
  payoutErrors?: FieldErrors;
  payoutError?: string;
  bankForm?: FormValues;
  bankErrors?: FieldErrors;
}

/**
 * Payouts: the balance, the bank account (set or replaced), a payout requested from what is available, the
 * history. Each is the call of the `/v1/payouts` routes (payouts.balance, bankAccount, updateBankAccount, create,
 * list), through the same body schemas; amounts are typed in whole units, as the page shows money.
 */
export function mountPayoutPages({ router, services, page, post }: PageKit): void {
  const payoutsPage = async (req: Request, res: Response, state: PayoutsPageState) => {
    const { auth } = identityOf(req);
    const cursor = queryText(req, 'cursor');
    const [balances, bankAccount, payouts, newest] = await Promise.all([
      services.payouts.balance(auth),
      services.payouts.bankAccount(auth),
      services.payouts.list(auth, { limit: PAGE_SIZE, cursor }),
      cursor ? services.payouts.list(auth, { limit: 1 }) : null,
    ]);
    const first = balances[0];
    page(req, res, {
      status: state.status,
      title: 'Payouts',
      active: 'payouts',
      body: BODY,
      context: {
        // Nothing earned yet is still money: a zero in each currency we sell in.
        balances: balances.length ? balances : Object.keys(CURRENCY_EXPONENTS).map((currency) => ({ currency, available: 0, pending: 0 })),
        bankAccount,
        accountEnding: bankAccount ? endingOf(bankAccount.bankAccountNumber) : '',
        canRequest: balances.length > 0 && bankAccount !== null,
        amountExample: first ? majorUnits(first.available, first.currency) : '',
        payouts: payouts.data.map((p) => ({ ...p, tone: payoutTone(p.status), ending: endingOf(p.bankAccountNumber) })),
        nextCursor: payouts.nextCursor,
        latestPayoutId: (newest ?? payouts).data[0]?.id ?? '',
        payoutForm: state.payoutForm ?? {},
        payoutErrors: state.payoutErrors,
        payoutError: state.payoutError,
        bankForm: state.bankForm ?? (bankAccount ? { ...bankAccount, bankCode: bankAccount.bankCode ?? '' } : {}),
        bankErrors: state.bankErrors,
      },
    });
  };

  router.get('/payouts', (req, res) => payoutsPage(req, res, { status: 200 }));

  post('/payouts', async (req, res) => {
    const { auth } = identityOf(req);
    const form = { currency: (formField(req, 'currency') ?? '').trim().toUpperCase(), amount: (formField(req, 'amount') ?? '').trim(), note: (formField(req, 'note') ?? '').trim() };
    const refuse = (status: number, payoutErrors: FieldErrors) => payoutsPage(req, res, { status, payoutForm: form, payoutErrors });
    if (!/^[A-Z]{3}$/.test(form.currency)) return refuse(400, { currency: 'Choose the currency to pay out' });
    const amount = smallestUnits(form.amount, form.currency);
    if (amount === null) return refuse(400, { amount: `Type an amount in ${form.currency}, like ${majorUnits(12_500, form.currency)}` });
    const parsed = CreatePayoutBody.safeParse({ amount, currency: form.currency, ...(form.note ? { note: form.note } : {}) });
    if (!parsed.success) return refuse(400, fieldErrorsOf(parsed.error));
    const latestPayoutId = formField(req, 'latestPayoutId') ?? '';
    if (latestPayoutId !== '' && !/^pout_\w{1,64}$/.test(latestPayoutId)) throw new AppError('VALIDATION_ERROR', 'latestPayoutId: the form is incomplete; open the page again');
    try {
      await services.payouts.create(auth, parsed.data, { latestPayoutId: latestPayoutId || null });
    } catch (err) {
      // Sent again after its payout (a double click, a resubmitted page): nothing more is requested.
      if (err instanceof AppError && err.code === 'INVALID_STATE') return refuse(409, { amount: err.message });
      if (err instanceof AppError && err.code === 'INSUFFICIENT_BALANCE') {
        const { available } = err.details as { available: number };
        return refuse(409, { amount: `More than the ${formatMoney(available, form.currency)} available in ${form.currency}` });
      }
      if (err instanceof AppError && err.code === 'BANK_ACCOUNT_NOT_SET') return payoutsPage(req, res, { status: 409, payoutForm: form, payoutError: 'Set a bank account before requesting a payout.' });
      const beside = fieldErrorOfAppError(err);
      if (beside) return refuse(400, beside);
      throw err;
    }
    res.redirect(303, `${req.baseUrl}/payouts?notice=payout-requested`);
  });

  post('/payouts/bank-account', async (req, res) => {
    const { auth } = identityOf(req);
    const form = Object.fromEntries(BANK_FIELDS.map((name) => [name, (formField(req, name) ?? '').trim()])) as Record<(typeof BANK_FIELDS)[number], string>;
    const { bankCode, ...required } = form;
    const parsed = UpdateBankAccountBody.safeParse({ ...required, ...(bankCode ? { bankCode } : {}) });
    if (!parsed.success) {
      const bankErrors = fieldErrorsOf(parsed.error);
      for (const [name, label] of Object.entries(REQUIRED_BANK_FIELDS)) if (form[name as keyof typeof form] === '') bankErrors[name] = `Enter the ${label}`;
      return payoutsPage(req, res, { status: 400, bankForm: form, bankErrors });
    }
    try {
      await services.payouts.updateBankAccount(auth, parsed.data);
    } catch (err) {
      const beside = fieldErrorOfAppError(err);
      if (beside) return payoutsPage(req, res, { status: 400, bankForm: form, bankErrors: beside });
      throw err;
    }
    res.redirect(303, `${req.baseUrl}/payouts?notice=bank-account-saved`);
  });
}
