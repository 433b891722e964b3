import { publicDiscountCodesStatement, readPublicDiscountCodeRows } from '../../db/discounts';
import { publicVariantsStatement, readPublicVariantRows, type PublicVariantRow } from '../../db/inventory';
import type { Statement } from '../../db/pagination';
import { productReadStatement, readProductRows } from '../../db/products';
import type { Tenant } from '../../db/tenancy';
import { notFound } from '../../lib/errors';
import type { AuthContext } from '../auth-context';
import { quoteDiscount, type CheckoutCartItem } from '../pricing';
import { toPublicDiscountCode, type DiscountValidation } from '../discounts';
import { toProductDto, type ProductDto } from '../products';
import type { ServiceDeps } from '../service-deps';
import { findMerchant, resolveStorefront, type Merchant } from './merchant';

/** The landing page shows at most this many products (newest first); a catalogue larger than that pages through the API. */
export const LANDING_PRODUCT_LIMIT = 200;
export const CROSS_SELL_LIMIT = 4;
/** Publicly listed discount codes on a storefront, newest first. */
export const LANDING_DISCOUNT_LIMIT = 50;

/** Metadata keys a buyer may see: the SEO copy that AI generation writes for the storefront. Everything else is the merchant's. */
const PUBLIC_METADATA_KEYS = ['seoTitle', 'metaDescription', 'featureBullets'];

export function toMerchantDto(merchant: Merchant) {
  return {
    id: merchant.id,
    name: merchant.name,
    slug: merchant.slug,
    brandColor: merchant.brandColor,
    brandLogo: merchant.brandLogo,
    brandBanner: merchant.brandBanner,
    description: merchant.description,
  };
}

export function toPixelsDto(merchant: Merchant) {
  return { metaPixelId: merchant.metaPixelId, googleTagId: merchant.googleTagId, tiktokPixelId: merchant.tiktokPixelId };
}

/** The product as a buyer sees it: the merchant shape without storage keys, the workspace id or private metadata. */
export function toPublicProduct(dto: ProductDto) {
  const { accountId: _accountId, metadata, files, ...rest } = dto;
  return {
    ...rest,
    files: files.map(({ accountId: _fileAccount, ...file }) => file),
    metadata: Object.fromEntries(Object.entries(metadata).filter(([key]) => PUBLIC_METADATA_KEYS.includes(key))),
  };
}

export type PublicProduct = ReturnType<typeof toPublicProduct>;

/**
 * A variant as a buyer sees it: its resolved price, never its cost or threshold; `available` (summed over the
 * active warehouses) only while the fulfillment module is on, else null.
 */
export function toPublicVariant(row: PublicVariantRow, productPrice: number, withStock: boolean) {
  const priceDelta = Number(row.priceDelta);
  return {
    id: row.id,
    productId: row.productId,
    sku: row.sku,
    name: row.name,
    priceDelta,
    price: productPrice + priceDelta,
    isDefault: row.isDefault,
    available: withStock ? Number(row.available) : null,
  };
}

export type PublicVariant = ReturnType<typeof toPublicVariant>;

/** A product's stock state on its page: the sum over its variants, and whether any can be bought. */
export function inventoryOf(variants: PublicVariant[]) {
  const available = variants.reduce((sum, v) => sum + (v.available ?? 0), 0);
  return { available, inStock: available > 0 };
}

/**
 * Other published products of the merchant that share a tag with this one, most shared tags first, then newest.
 * Tags are what merchants already curate (tag-scoped discounts use them), so no separate cross-sell list is kept.
 */
export function crossSell(product: PublicProduct, catalogue: PublicProduct[]): PublicProduct[] {
  const tags = new Set(product.tags);
  if (tags.size === 0) return [];
  return catalogue
    .filter((other) => other.id !== product.id)
    .map((other) => ({ other, shared: other.tags.filter((t) => tags.has(t)).length }))
    .filter(({ shared }) => shared > 0)
    .sort((a, b) => b.shared - a.shared || (a.other.id < b.other.id ? 1 : -1))
    .slice(0, CROSS_SELL_LIMIT)
    .map(({ other }) => other);
}

/**
 * The statements of the public reads (named prepared statements, db/plain-query.ts: these are the busiest routes),
 * exported so the bench's ceilings send the very same ones.
 */
export const publicReadStatements = {
  /** The landing page's products: the newest published ones, files aggregated. */
  landingProducts: (tenant: Tenant) => productReadStatement(tenant, { published: true }, LANDING_PRODUCT_LIMIT),
  /** One published product by its slug. */
  product: (tenant: Tenant, slug: string) => productReadStatement(tenant, { slug, published: true }, 1),
  /** The cross-sell candidates: published products sharing at least one of `tags` (crossSell ranks them). */
  crossSellCandidates: (tenant: Tenant, tags: string[]) => productReadStatement(tenant, { published: true, anyTag: tags }, LANDING_PRODUCT_LIMIT),
  /** A product's active variants with their stock, default first (read only for a product that has variants). */
  variants: (tenant: Tenant, productId: string) => publicVariantsStatement(tenant, productId),
  /** The publicly listed codes usable at `now`. */
  discountCodes: (tenant: Tenant, now: Date) => publicDiscountCodesStatement(tenant, now, LANDING_DISCOUNT_LIMIT),
};

export function createPublicStorefrontService({ sequelize, config }: Pick<ServiceDeps, 'sequelize' | 'config'>) {
  const storefrontOf = (merchant: Merchant) => ({ workspaceSlug: merchant.slug, baseUrl: config.PUBLIC_BASE_URL });

  async function publicProducts(merchant: Merchant, statement: Statement): Promise<PublicProduct[]> {
    const rows = await readProductRows(sequelize, statement);
    return rows.map((row) => toPublicProduct(toProductDto(row, row.files, storefrontOf(merchant), 'buyer')));
  }

  async function publicVariants(tenant: Tenant, product: PublicProduct, withStock: boolean): Promise<PublicVariant[]> {
    const rows = await readPublicVariantRows(sequelize, publicReadStatements.variants(tenant, product.id));
    return rows.map((row) => toPublicVariant(row, product.price, withStock));
  }

  /** The codes the merchant lists publicly that a buyer can use now: active, public and inside their window. */
  async function listedDiscountCodes(tenant: Tenant) {
    const rows = await readPublicDiscountCodeRows(sequelize, publicReadStatements.discountCodes(tenant, new Date()));
    return rows.map(toPublicDiscountCode);
  }

  return {
    /** `/resolve/:slug`: the workspace behind a slug or custom domain, with its branding. */
    async resolve(slugOrHost: string) {
      const merchant = await findMerchant(sequelize, slugOrHost);
      if (!merchant) throw notFound('Storefront');
      return toMerchantDto(merchant);
    },

    async landing(slugOrHost: string, auth: AuthContext | undefined) {
      const { merchant, tenant } = await resolveStorefront(sequelize, slugOrHost, auth);
      return {
        merchant: toMerchantDto(merchant),
        products: await publicProducts(merchant, publicReadStatements.landingProducts(tenant)),
        discountCodes: await listedDiscountCodes(tenant),
        pixels: toPixelsDto(merchant),
      };
    },

    /** Quotes a code for a cart; the public route sends no buyer identity, so the per-customer limit waits for checkout. */
    async validateDiscount(slugOrHost: string, auth: AuthContext | undefined, input: { code: string; items: CheckoutCartItem[] }): Promise<DiscountValidation> {
      const { tenant } = await resolveStorefront(sequelize, slugOrHost, auth);
      return quoteDiscount(sequelize, tenant, input);
    },

    async discountCodes(slugOrHost: string, auth: AuthContext | undefined) {
      const { tenant } = await resolveStorefront(sequelize, slugOrHost, auth);
      return listedDiscountCodes(tenant);
    },

    async pixels(slugOrHost: string, auth: AuthContext | undefined) {
      const { merchant } = await resolveStorefront(sequelize, slugOrHost, auth);
      return toPixelsDto(merchant);
    },

    /** One published product by its slug, with its cross-sell list; unpublished, archived or unknown is 404. */
    async product(slugOrHost: string, productSlug: string, auth: AuthContext | undefined) {
      const { merchant, tenant } = await resolveStorefront(sequelize, slugOrHost, auth);
      const [product] = await publicProducts(merchant, publicReadStatements.product(tenant, productSlug));
      if (!product) throw notFound('Product');
      // Only products sharing a tag can be cross-sold, so only those are read (none without tags).
      const candidates = product.tags.length > 0 ? await publicProducts(merchant, publicReadStatements.crossSellCandidates(tenant, product.tags)) : [];
      const variants = product.hasVariants ? await publicVariants(tenant, product, merchant.fulfillmentEnabled) : [];
      return {
        ...product,
        variants,
        // Only variants are stock-tracked, and stock shows only while the fulfillment module is on.
        inventory: merchant.fulfillmentEnabled && variants.length > 0 ? inventoryOf(variants) : null,
        crossSell: crossSell(product, candidates),
      };
    },
  };
}

export type PublicStorefrontService = ReturnType<typeof createPublicStorefrontService>;
