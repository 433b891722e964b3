import { QueryTypes, type Sequelize } from 'sequelize';
import type { Environment } from '../../db/models';
import { plainQuery } from '../../db/plain-query';
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
export interface Merchant {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  brandColor: string | null;
  brandLogo: string | null;
  brandBanner: string | null;
  metaPixelId: string | null;
  googleTagId: string | null;
  tiktokPixelId: string | null;
  /** Whether the fulfilment module is on: product pages then show stock. */
  fulfillmentEnabled: boolean;
  /** When the workspace's branding last changed: the landing page's lastmod in the sitemap. */
  updatedAt: Date;
}

const MERCHANT_COLUMNS = `a.id, a.name, a.slug, a.description, a.brand_color AS "brandColor", a.brand_logo AS "brandLogo",
  a.brand_banner AS "brandBanner", a.meta_pixel_id AS "metaPixelId", a.google_tag_id AS "googleTagId", a.tiktok_pixel_id AS "tiktokPixelId",
  a.fulfillment_enabled AS "fulfillmentEnabled", a.updated_at AS "updatedAt"`;

/**
 * The workspace whose slug, or one of whose custom domains, `$1` is (either matched case-insensitively): every
 * public storefront request starts with it, so it runs as a named prepared statement (db/plain-query.ts);
 * exported so the bench's ceilings send the very same one.
 */
export const MERCHANT_SQL = `SELECT ${MERCHANT_COLUMNS} FROM accounts a
  WHERE a.slug = lower($1)
     OR a.id = (SELECT d.account_id FROM custom_domains d WHERE d.hostname = lower($1))
  LIMIT 1`;

/** The workspace whose slug, or one of whose custom domains, this is; undefined when none (or it has no slug). */
export async function findMerchant(sequelize: Sequelize, slugOrHost: string): Promise<Merchant | undefined> {
  const [row] = await plainQuery<Merchant>(sequelize, MERCHANT_SQL, [slugOrHost]);
  return row?.slug ? row : undefined;
}

/** The slug of the workspace serving this custom domain, for the host rewrite; undefined for any other host. */
export async function slugOfCustomDomain(sequelize: Sequelize, hostname: string): Promise<string | undefined> {
  const [row] = await sequelize.query<{ slug: string | null }>(
    'SELECT a.slug FROM custom_domains d JOIN accounts a ON a.id = d.account_id WHERE d.hostname = lower(:hostname)',
    { replacements: { hostname }, type: QueryTypes.SELECT },
  );
  return row?.slug ?? undefined;
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
