import { Account } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { AppError, forbidden, notFound } from '../../lib/errors';
import type { ApiKeyService } from '../api-keys/service';

/**
 * Which workspace and environment a public storefront request acts on (docs/decisions/storefront.md): the
 * merchant slug names the workspace; the environment is live, unless the request carries one of that
 * workspace's own keys (normally its `pk_test_…` publishable key), whose environment it then takes.
 */
export function createMerchantResolver(apiKeys: Pick<ApiKeyService, 'findActiveKey'>) {
  return async function resolveMerchant(merchantSlug: string, apiKey: string | undefined): Promise<Tenant> {
    // Slugs are stored lowercase (^[a-z0-9-]{2,80}$); a storefront URL may not be.
    const account = await Account.findOne({ where: { slug: merchantSlug.toLowerCase() }, attributes: ['id'] });
    if (!account) throw notFound('Merchant');
    if (apiKey === undefined) return { accountId: account.id, environment: 'live' };
    const key = await apiKeys.findActiveKey(apiKey);
    if (!key) throw new AppError('INVALID_API_KEY', 'The API key is unknown or revoked');
    if (key.accountId !== account.id) throw forbidden('This key belongs to another workspace than the merchant named');
    return { accountId: account.id, environment: key.environment };
  };
}

export type MerchantResolver = ReturnType<typeof createMerchantResolver>;
