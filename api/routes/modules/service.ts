import { Account } from '../../../db/models';
import type { AuthContext } from '../../auth-context';
import { notFound } from '../../errors';
import type { SetModuleBody } from './schemas';

export interface ModuleFlags {
  fulfillment: boolean;
  payment: boolean;
}

const toFlags = (account: Account): ModuleFlags => ({
  fulfillment: account.fulfillmentEnabled,
  payment: account.paymentEnabled,
});

/** Module switches belong to the workspace, shared by its test and live environments. */
export function createModuleService() {
  return {
    async get(auth: AuthContext): Promise<ModuleFlags> {
      const account = await Account.findByPk(auth.accountId);
      if (!account) throw notFound('Workspace');
      return toFlags(account);
    },

    async set(accountId: string, input: SetModuleBody): Promise<ModuleFlags> {
      const column = input.module === 'fulfillment' ? 'fulfillmentEnabled' : 'paymentEnabled';
      const [count, rows] = await Account.update({ [column]: input.enabled }, { where: { id: accountId }, returning: true });
      const account = rows[0];
      if (count === 0 || !account) throw notFound('Workspace');
      return toFlags(account);
    },
  };
}

export type ModuleService = ReturnType<typeof createModuleService>;
