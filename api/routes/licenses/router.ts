import { z } from 'zod';
import { ApiRouter } from '../../endpoint';
import type { RouteDeps } from '../route-deps';
import { License, LicenseActivation, LicenseDeactivation, LicenseInstanceBody, LicenseKeyParams, LicenseValidation, ValidateLicenseQuery } from './schemas';

/**
 * Licences: the merchant's list, retrieve and revoke (secret key), and the routes installed software calls with
 * the licence key alone (no API key; per-IP and per-key rate limits). `/validate` is declared before `/:key`.
 */
export function licensesRouter(deps: RouteDeps) {
  const { licenses, publicLicenses } = deps.services;
  return new ApiRouter('/v1/storefront/licenses', 'Licences', deps)
    .add({
      method: 'get',
      path: '/',
      summary: 'List every licence, newest first (no pagination)',
      access: 'secret',
      response: z.array(License),
      handler: async ({ auth }) => ({ data: await licenses.list(auth) }),
    })
    .add({
      method: 'get',
      path: '/validate',
      summary: 'Validate a licence key (read-only; a bad key is `valid: false`, never an error)',
      access: 'public',
      rateLimit: deps.rateLimits.perLicenseKey,
      query: ValidateLicenseQuery,
      response: LicenseValidation,
      handler: async ({ query }) => ({ data: await publicLicenses.validate(query.key, query.productId) }),
    })
    .add({
      method: 'get',
      path: '/:key',
      summary: 'Retrieve a licence by its key',
      access: 'secret',
      params: LicenseKeyParams,
      response: License,
      handler: async ({ auth, params }) => ({ data: await licenses.retrieve(auth, params.key) }),
    })
    .add({
      method: 'delete',
      path: '/:key',
      summary: 'Revoke a licence (permanent; revoking again answers 204 too)',
      access: 'secret',
      params: LicenseKeyParams,
      status: 204,
      handler: async ({ auth, params }) => {
        await licenses.revoke(auth, params.key);
        return { noContent: true };
      },
    })
    .add({
      method: 'post',
      path: '/:key/activate',
      summary: 'Activate the licence on an instance (idempotent per instanceId; 422 when expired or full)',
      access: 'public',
      rateLimit: deps.rateLimits.perLicenseKey,
      params: LicenseKeyParams,
      body: LicenseInstanceBody,
      response: LicenseActivation,
      errors: ['SUBSCRIPTION_INACTIVE', 'ACTIVATION_LIMIT_REACHED'],
      handler: async ({ params, body }) => ({ data: await publicLicenses.activate(params.key, body.instanceId) }),
    })
    .add({
      method: 'post',
      path: '/:key/deactivate',
      summary: 'Free the slot of an instance (idempotent)',
      access: 'public',
      rateLimit: deps.rateLimits.perLicenseKey,
      params: LicenseKeyParams,
      body: LicenseInstanceBody,
      response: LicenseDeactivation,
      handler: async ({ params, body }) => ({ data: await publicLicenses.deactivate(params.key, body.instanceId) }),
    }).router;
}
