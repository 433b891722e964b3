import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import { BillingSettings, UpdateBillingSettingsBody } from './schemas';

/** Workspace settings live under `/v1/account/…`, like the storefront settings; these apply to both environments. */
export function billingSettingsRouter(deps: RouteDeps) {
  const service = deps.services.billingSettings;
  return new ApiRouter('/v1/account/billing', 'Billing settings', deps)
    .add({
      method: 'get',
      path: '/',
      summary: "The workspace's billing settings: invoice tax rate and what dunning does after the final retry",
      access: 'secret',
      response: BillingSettings,
      handler: async ({ auth }) => ({ data: await service.get(auth) }),
    })
    .add({
      method: 'patch',
      path: '/',
      summary: 'Update billing settings (partial); a new tax rate applies to invoices issued afterwards',
      access: 'secret',
      body: UpdateBillingSettingsBody,
      response: BillingSettings,
      handler: async ({ auth, body }) => ({ data: await service.update(auth, body) }),
    }).router;
}
