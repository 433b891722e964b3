import { Account } from '../../db/models';
import { notFound } from '../../lib/errors';
import type { AuthContext } from '../auth-context';

export const MODULES = ['fulfillment', 'payment'] as const;
export type ModuleName = (typeof MODULES)[number];

export interface ModuleSwitch {
  module: ModuleName;
  enabled: boolean;
}

export interface ModuleFlags {
  fulfillment: boolean;
  payment: boolean;
}

const toFlags = (account: Account): ModuleFlags => ({
  fulfillment: account.fulfillmentEnabled,
  payment: account.paymentEnabled,
});

export interface ModuleServiceHooks {
  /** Runs on every module check (read or switch) with the resulting flags; webhooks reconcile their system endpoints here. */
  onCheck?: (accountId: string, flags: ModuleFlags) => Promise<void>;
  /** Runs once a switch is committed, before the answer (the key cache holds the flags). */
  onChange?: (accountId: string) => void;
}

/** Module switches belong to the workspace, shared by its test and live environments. */
export function createModuleService(hooks: ModuleServiceHooks = {}) {
  return {
    async get(auth: AuthContext): Promise<ModuleFlags> {
      const account = await Account.findByPk(auth.accountId);
      if (!account) throw notFound('Workspace');
      await hooks.onCheck?.(auth.accountId, toFlags(account));
      return toFlags(account);
    },

    async set(accountId: string, input: ModuleSwitch): Promise<ModuleFlags> {
      const column = input.module === 'fulfillment' ? 'fulfillmentEnabled' : 'paymentEnabled';
      const [count, rows] = await Account.update({ [column]: input.enabled }, { where: { id: accountId }, returning: true });
      const account = rows[0];
      if (count === 0 || !account) throw notFound('Workspace');
      hooks.onChange?.(accountId);
      await hooks.onCheck?.(accountId, toFlags(account));
      return toFlags(account);
    },
  };
}

export type ModuleService = ReturnType<typeof createModuleService>;
