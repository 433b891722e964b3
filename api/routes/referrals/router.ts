import { z } from 'zod';
import { ApiRouter } from '../../endpoint';
import { pageQuery } from '../../pagination';
import type { RouteDeps } from '../route-deps';
import { CreateReferralLinkBody, ReferralLink, ReferralLinkIdParams, UpdateReferralLinkBody } from './schemas';

export function referralLinksRouter(deps: RouteDeps) {
  const service = deps.services.referralLinks;
  return new ApiRouter('/v1/referral-links', 'Referral links', deps)
    .add({
      method: 'post',
      path: '/',
      summary: 'Create a referral link (a code leading to a product or the landing page)',
      access: 'secret',
      body: CreateReferralLinkBody,
      response: ReferralLink,
      status: 201,
      handler: async ({ auth, body }) => ({ data: await service.create(auth, body) }),
    })
    .add({
      method: 'get',
      path: '/',
      summary: 'List referral links, newest first, with their click, capture and conversion counts',
      access: 'secret',
      query: pageQuery(),
      response: z.array(ReferralLink),
      paginated: true,
      handler: async ({ auth, query }) => service.list(auth, query),
    })
    .add({
      method: 'get',
      path: '/:id',
      summary: 'Retrieve a referral link',
      access: 'secret',
      params: ReferralLinkIdParams,
      response: ReferralLink,
      handler: async ({ auth, params }) => ({ data: await service.retrieve(auth, params.id) }),
    })
    .add({
      method: 'patch',
      path: '/:id',
      summary: 'Update a referral link (label, target, active); the code is fixed',
      access: 'secret',
      params: ReferralLinkIdParams,
      body: UpdateReferralLinkBody,
      response: ReferralLink,
      handler: async ({ auth, params, body }) => ({ data: await service.update(auth, params.id, body) }),
    })
    .add({
      method: 'delete',
      path: '/:id',
      summary: 'Deactivate a referral link: it stops resolving; its counts stay',
      access: 'secret',
      params: ReferralLinkIdParams,
      response: ReferralLink,
      handler: async ({ auth, params }) => ({ data: await service.deactivate(auth, params.id) }),
    }).router;
}
