import type { Sequelize } from 'sequelize';
import { z } from 'zod';
import { patchBody } from '../../lib/patch-body';
import { Account } from '../../db/models';
import { notFound } from '../../lib/errors';
import type { AuthContext } from '../auth-context';

export const DUNNING_FINAL_ACTIONS = ['cancel', 'leave_unpaid'] as const;

export const UpdateBillingSettingsBody = patchBody(
  z
    .strictObject({
      taxRateBps: z
        .int()
        .min(0)
        .max(10_000)
        .optional()
        .meta({ description: 'Tax added to invoices issued from now on, in basis points of the subtotal (1100 = 11%); rounded half up to the smallest unit' }),
      dunningFinalAction: z
        .enum(DUNNING_FINAL_ACTIONS)
        .optional()
        .meta({ description: 'After the final failed retry an `unpaid` subscription is `cancel`led (the default) or left `unpaid`' }),
    }),
  'UpdateBillingSettingsBody',
);
export type UpdateBillingSettingsBody = z.infer<typeof UpdateBillingSettingsBody>;

function toBillingSettingsDto(account: Pick<Account, 'id' | 'invoiceTaxRateBps' | 'dunningFinalAction'>) {
  return { accountId: account.id, taxRateBps: account.invoiceTaxRateBps, dunningFinalAction: account.dunningFinalAction };
}
export type BillingSettingsDto = ReturnType<typeof toBillingSettingsDto>;

const ATTRIBUTES = ['id', 'invoiceTaxRateBps', 'dunningFinalAction'] as const;

/**
 * The workspace's billing settings (docs/decisions/billing.md): like the storefront settings they belong to the
 * workspace, not to an environment, so test and live invoices are taxed alike and dunning ends alike.
 */
export function createBillingSettingsService({ sequelize }: { sequelize: Sequelize }) {
  return {
    async get(auth: AuthContext): Promise<BillingSettingsDto> {
      const account = await Account.findByPk(auth.accountId, { attributes: [...ATTRIBUTES] });
      if (!account) throw notFound('Workspace');
      return toBillingSettingsDto(account);
    },

    /** Issued invoices keep the tax they were issued with; running subscriptions read the dunning action when they reach it. */
    async update(auth: AuthContext, input: UpdateBillingSettingsBody): Promise<BillingSettingsDto> {
      return sequelize.transaction(async (tx) => {
        const account = await Account.findByPk(auth.accountId, { attributes: [...ATTRIBUTES], lock: tx.LOCK.UPDATE, transaction: tx });
        if (!account) throw notFound('Workspace');
        await account.update(
          {
            ...(input.taxRateBps !== undefined ? { invoiceTaxRateBps: input.taxRateBps } : {}),
            ...(input.dunningFinalAction !== undefined ? { dunningFinalAction: input.dunningFinalAction } : {}),
          },
          { transaction: tx },
        );
        return toBillingSettingsDto(account);
      });
    },
  };
}

export type BillingSettingsService = ReturnType<typeof createBillingSettingsService>;
