import { z } from 'zod';
import { ApiRouter } from '../../endpoint';
import { pageQuery } from '../../pagination';
import { ApiKey, ApiKeyIdParams, CreateApiKeyBody, CreatedApiKey } from './schemas';
import type { RouteDeps } from '../route-deps';

export function apiKeysRouter(deps: RouteDeps) {
  const service = deps.services.apiKeys;
  return new ApiRouter('/v1/account/api-keys', 'API keys', deps)
    .add({
      method: 'get',
      path: '/',
      summary: 'List the API keys of the calling environment, newest first',
      access: 'secret',
      query: pageQuery(),
      response: z.array(ApiKey),
      paginated: true,
      handler: async ({ auth, query }) => service.list(auth, query),
    })
    .add({
      method: 'post',
      path: '/',
      summary: 'Create an API key; its value is returned once',
      access: 'secret',
      body: CreateApiKeyBody,
      response: CreatedApiKey,
      status: 201,
      handler: async ({ auth, body }) => ({ data: await service.create(auth, body) }),
    })
    .add({
      method: 'delete',
      path: '/:id',
      summary: 'Revoke an API key, immediately and irreversibly',
      access: 'secret',
      params: ApiKeyIdParams,
      response: ApiKey,
      handler: async ({ auth, params }) => ({ data: await service.revoke(auth, params.id) }),
    }).router;
}
