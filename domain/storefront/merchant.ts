import type { Sequelize } from 'sequelize';
import { customDomainSlug, readMerchant, type MerchantRow } from '../../db/merchants';
import type { Environment } from '../../db/models';
import type { Tenant } from '../../db/tenancy';
import { forbidden, notFound } from '../../lib/errors';
import type { AuthContext } from '../auth-context';

/**
 * The first path segments of public storefront routes that belong to no merchant (`/resolve/:slug`,
 * `/order/:deliveryId`, `/downloads/:token`, …). They are declared before every `/:merchantSlug/…` route,
 * never rewritten on a custom domain, and refused as workspace slugs, so no store's pages hide behind them.
 */
export const GLOBAL_STOREFRONT_SEGMENTS: ReadonlySet<string> = new Set(['resolve', 'order', 'track', 'validate-discount', 'abandoned-cart', 'downloads']);

/** A workspace as its public storefront shows it. */
export type Merchant = MerchantRow;

/** The workspace whose slug, or one of whose custom domains, this is; undefined when none (or it has no slug). */
export async function findMerchant(sequelize: Sequelize, slugOrHost: string): Promise<Merchant | undefined> {
  const row = await readMerchant(sequelize, slugOrHost);
  return row?.slug ? row : undefined;
}

/** The slug of the workspace serving this custom domain, for the host rewrite; undefined for any other host. */
export async function slugOfCustomDomain(sequelize: Sequelize, hostname: string): Promise<string | undefined> {
  return (await customDomainSlug(sequelize, hostname)) ?? undefined;
}

/**
 * Which environment a keyless storefront request reads: `live`, unless the buyer-facing page presents one of
 * the merchant's own keys (a `pk_test_…` key previews the test catalogue). A key of another workspace is refused.
 */
export function storefrontEnvironment(merchant: Pick<Merchant, 'id'>, auth: AuthContext | undefined): Environment {
  if (!auth) return 'live';
  if (auth.accountId !== merchant.id) throw forbidden('This key belongs to another workspace than the storefront it reads');
  return auth.environment;
}

/** Resolves the merchant of a public request and the tenant it reads; an unknown slug is 404. */
export async function resolveStorefront(sequelize: Sequelize, slugOrHost: string, auth: AuthContext | undefined): Promise<{ merchant: Merchant; tenant: Tenant }> {
  const merchant = await findMerchant(sequelize, slugOrHost);
  if (!merchant) throw notFound('Storefront');
  return { merchant, tenant: { accountId: merchant.id, environment: storefrontEnvironment(merchant, auth) } };
}
