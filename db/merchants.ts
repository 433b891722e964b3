import { QueryTypes, type Sequelize } from 'sequelize';
import { plainQuery } from './plain-query';

/** A workspace's row as its public storefront shows it (domain/storefront/merchant.ts). */
export interface MerchantRow {
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
  /** Whether the fulfillment module is on: product pages then show stock. */
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

/** The workspace of a slug or custom domain (its slug may be null); undefined when none. */
export async function readMerchant(sequelize: Sequelize, slugOrHost: string): Promise<MerchantRow | undefined> {
  const [row] = await plainQuery<MerchantRow>(sequelize, MERCHANT_SQL, [slugOrHost]);
  return row;
}

/** The slug of the workspace serving this custom domain: null when it has none, undefined for any other host. */
export async function customDomainSlug(sequelize: Sequelize, hostname: string): Promise<string | null | undefined> {
  const [row] = await sequelize.query<{ slug: string | null }>(
    'SELECT a.slug FROM custom_domains d JOIN accounts a ON a.id = d.account_id WHERE d.hostname = lower(:hostname)',
    { replacements: { hostname }, type: QueryTypes.SELECT },
  );
  return row?.slug;
}
