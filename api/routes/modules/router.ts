import { ApiRouter } from '../../endpoint';
import { ModuleFlags, SetModuleBody } from './schemas';
import type { RouteDeps } from '../route-deps';

export function modulesRouter(deps: RouteDeps) {
  const service = deps.services.modules;
  return new ApiRouter('/v1/modules', 'Modules', deps)
    .add({
      method: 'get',
      path: '/',
      summary: 'Which optional modules are on for the workspace',
      access: 'secret',
      response: ModuleFlags,
      handler: async ({ auth }) => ({ data: await service.get(auth) }),
    })
    .add({
      method: 'post',
      path: '/',
      summary: 'Switch the fulfillment or payment module on or off',
      access: 'secret',
      body: SetModuleBody,
      response: ModuleFlags,
      handler: async ({ auth, body }) => ({ data: await service.set(auth.accountId, body) }),
    }).router;
}
