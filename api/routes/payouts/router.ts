import { z } from 'zod';
import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import {
  Balance,
  BankAccount,
  CreatePayoutBody,
  ListPayoutsQuery,
  MarkPayoutFailedBody,
  MarkPayoutInTransitBody,
  MarkPayoutPaidBody,
  Payout,
  PayoutIdParams,
  UpdateBankAccountBody,
} from './schemas';

export function payoutsRouter(deps: RouteDeps) {
  const { payouts } = deps.services;
  // The fixed paths first: `/:id` would take `balance` and `bank-account` otherwise.
  return new ApiRouter('/v1/payouts', 'Payouts', deps)
    .add({
      method: 'get',
      path: '/balance',
      summary: 'The balance: one object per currency the workspace has sold in, by currency (an empty list before the first sale)',
      access: 'secret',
      response: z.array(Balance),
      handler: async ({ auth }) => ({ data: await payouts.balance(auth) }),
    })
    .add({
      method: 'get',
      path: '/bank-account',
      summary: 'The configured bank account; `data: null` until the first PATCH',
      access: 'secret',
      response: BankAccount.nullable(),
      handler: async ({ auth }) => ({ data: await payouts.bankAccount(auth) }),
    })
    .add({
      method: 'patch',
      path: '/bank-account',
      summary: 'Set the bank account, replacing the one before (`bankCode` required while the payment module is on)',
      access: 'secret',
      body: UpdateBankAccountBody,
      response: BankAccount,
      handler: async ({ auth, body }) => ({ data: await payouts.updateBankAccount(auth, body) }),
    })
    .add({
      method: 'post',
      path: '/',
      summary: 'Request a payout: the amount leaves `available` at once (409 INSUFFICIENT_BALANCE, 409 BANK_ACCOUNT_NOT_SET)',
      access: 'secret',
      body: CreatePayoutBody,
      response: Payout,
      status: 201,
      errors: ['INSUFFICIENT_BALANCE', 'BANK_ACCOUNT_NOT_SET'],
      handler: async ({ auth, body }) => ({ data: await payouts.create(auth, body) }),
    })
    .add({
      method: 'get',
      path: '/',
      summary: 'List payouts, newest first (`status` filter)',
      access: 'secret',
      query: ListPayoutsQuery,
      response: z.array(Payout),
      paginated: true,
      handler: async ({ auth, query }) => payouts.list(auth, query),
    })
    .add({
      method: 'get',
      path: '/:id',
      summary: 'Retrieve a payout',
      access: 'secret',
      params: PayoutIdParams,
      response: Payout,
      handler: async ({ auth, params }) => ({ data: await payouts.retrieve(auth, params.id) }),
    })
    .add({
      method: 'post',
      path: '/:id/cancel',
      summary: 'Cancel a pending payout: the amount returns to `available` at once (409 INVALID_STATE otherwise)',
      access: 'secret',
      params: PayoutIdParams,
      response: Payout,
      errors: ['INVALID_STATE'],
      handler: async ({ auth, params }) => ({ data: await payouts.cancel(auth, params.id) }),
    })
    .add({
      method: 'post',
      path: '/:id/mark-in-transit',
      summary: 'Manual mode: a pending payout was sent (optional `reference`)',
      access: 'secret',
      params: PayoutIdParams,
      body: MarkPayoutInTransitBody,
      response: Payout,
      errors: ['INVALID_STATE'],
      handler: async ({ auth, params, body }) => ({ data: await payouts.markInTransit(auth, params.id, body) }),
    })
    .add({
      method: 'post',
      path: '/:id/mark-paid',
      summary: 'Manual mode: an in-transit payout arrived (optional `reference`)',
      access: 'secret',
      params: PayoutIdParams,
      body: MarkPayoutPaidBody,
      response: Payout,
      errors: ['INVALID_STATE'],
      handler: async ({ auth, params, body }) => ({ data: await payouts.markPaid(auth, params.id, body) }),
    })
    .add({
      method: 'post',
      path: '/:id/mark-failed',
      summary: 'Manual mode: an in-transit payout failed (`failureReason`); the amount returns to `available`',
      access: 'secret',
      params: PayoutIdParams,
      body: MarkPayoutFailedBody,
      response: Payout,
      errors: ['INVALID_STATE'],
      handler: async ({ auth, params, body }) => ({ data: await payouts.markFailed(auth, params.id, body) }),
    }).router;
}
