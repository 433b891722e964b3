import { Op, QueryTypes } from 'sequelize';
import { productReadStatement, type ProductReadRow } from '../../db/products';
import type { Tenant } from '../../db/tenancy';
import { notFound } from '../../lib/errors';
import type { AuthContext } from '../auth-context';
import { DiscountCode } from '../../db/models';
import { toPublicDiscountCode } from '../discounts/dto';
import { validateDiscount, type CartItem, type DiscountValidation } from '../discounts/validate';
import { toProductDto, type ProductDto } from '../products/dto';
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

export function createPublicStorefrontService({ sequelize, config }: Pick<ServiceDeps, 'sequelize' | 'config'>) {
  const storefrontOf = (merchant: Merchant) => ({ workspaceSlug: merchant.slug, baseUrl: config.PUBLIC_BASE_URL });

  async function publishedProducts(merchant: Merchant, tenant: Tenant): Promise<PublicProduct[]> {
    const { text, values } = productReadStatement(tenant, { published: true }, LANDING_PRODUCT_LIMIT);
    const rows = await sequelize.query<ProductReadRow>(text, { bind: values, type: QueryTypes.SELECT });
    return rows.map((row) => toPublicProduct(toProductDto(row, row.files, storefrontOf(merchant), 'buyer')));
  }

  /** The codes the merchant lists publicly that a buyer can use now: active, public and inside their window. */
  async function listedDiscountCodes(tenant: Tenant) {
    const now = new Date();
    const rows = await DiscountCode.findAll({
      where: {
        ...tenant,
        active: true,
        public: true,
        [Op.and]: [{ [Op.or]: [{ startsAt: null }, { startsAt: { [Op.lte]: now } }] }, { [Op.or]: [{ expiresAt: null }, { expiresAt: { [Op.gt]: now } }] }],
      },
      order: [['id', 'DESC']],
      limit: LANDING_DISCOUNT_LIMIT,
      raw: true,
    });
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
        products: await publishedProducts(merchant, tenant),
        discountCodes: await listedDiscountCodes(tenant),
        pixels: toPixelsDto(merchant),
      };
    },

    /** Quotes a code for a cart; the public route sends no buyer identity, so the per-customer limit waits for checkout. */
    async validateDiscount(slugOrHost: string, auth: AuthContext | undefined, input: { code: string; items: CartItem[]; subtotalAmount?: number }): Promise<DiscountValidation> {
      const { tenant } = await resolveStorefront(sequelize, slugOrHost, auth);
      return validateDiscount(sequelize, { tenant, ...input });
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
      const { text, values } = productReadStatement(tenant, { slug: productSlug, published: true }, 1);
      const [row] = await sequelize.query<ProductReadRow>(text, { bind: values, type: QueryTypes.SELECT });
      if (!row) throw notFound('Product');
      const product = toPublicProduct(toProductDto(row, row.files, storefrontOf(merchant), 'buyer'));
      const catalogue = product.tags.length > 0 ? await publishedProducts(merchant, tenant) : [];
      return {
        ...product,
        // Variants and stock arrive with the fulfilment module's inventory; until then a product has none.
        variants: [],
        inventory: null,
        crossSell: crossSell(product, catalogue),
      };
    },
  };
}

export type PublicStorefrontService = ReturnType<typeof createPublicStorefrontService>;
