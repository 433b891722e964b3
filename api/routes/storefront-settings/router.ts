import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import { StorefrontSettings, UpdateStorefrontSettingsBody } from './schemas';

export function storefrontSettingsRouter(deps: RouteDeps) {
  const service = deps.services.storefrontSettings;
  return new ApiRouter('/v1/account/storefront', 'Storefront settings', deps)
    .add({
      method: 'get',
      path: '/',
      summary: "The workspace's storefront settings: branding, pixels, custom domains, manual-payment instructions",
      access: 'secret',
      response: StorefrontSettings,
      handler: async ({ auth }) => ({ data: await service.get(auth) }),
    })
    .add({
      method: 'patch',
      path: '/',
      summary: 'Update storefront settings; `customDomains` is replaced whole; `""` or null clears a field',
      access: 'secret',
      body: UpdateStorefrontSettingsBody,
      response: StorefrontSettings,
      handler: async ({ auth, body }) => ({ data: await service.update(auth, body) }),
    }).router;
}
