import { Account } from '../../db/models';
import { AppError, notFound } from '../../lib/errors';
import type { AuthContext, WorkspaceSummary } from '../auth-context';

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

/**
 * The modules whose routes refuse to work while the workspace has them off: without the fulfillment module,
 * inventory and shipping answer `409 fulfillment_module_disabled` (document 1). The payment module only
 * switches the backend behind the same routes, so nothing is gated on it.
 */
export type GatedModule = 'fulfillment';

/** The one check of a module-gated operation, against the workspace as the request's key loaded it. */
export function assertModuleEnabled(account: Pick<WorkspaceSummary, 'fulfillmentEnabled'>, module: GatedModule): void {
  if (module === 'fulfillment' && !account.fulfillmentEnabled) {
    throw new AppError('fulfillment_module_disabled', 'The fulfillment module is off for this workspace; switch it on with POST /v1/modules');
  }
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
