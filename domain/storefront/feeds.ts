import { Product, type Currency } from '../../db/models';
import { markdownToText, truncateText } from '../../lib/markdown';
import { buildXml, type XmlElement } from '../../lib/xml';
import type { AuthContext } from '../auth-context';
import { pageUrl } from '../products';
import type { ServiceDeps } from '../service-deps';
import { resolveStorefront, type Merchant } from './merchant';
import { storefrontUrls } from './urls';

/**
 * The three catalogue feeds (docs/decisions/storefront.md, "Channel feeds"): RSS 2.0 with Google's `g:`
 * namespace, which Google Merchant Center reads natively and Meta and TikTok catalogues accept as well.
 */
export const FEED_CHANNELS = ['google', 'meta', 'tiktok'] as const;
export type FeedChannel = (typeof FEED_CHANNELS)[number];

/** Newest first; a larger catalogue needs a paged or streamed feed (not built yet). */
export const FEED_PRODUCT_LIMIT = 5_000;
// The strictest of the three channels' limits (Google's), so one product text fits all of them.
const TITLE_MAX = 150;
const DESCRIPTION_MAX = 5_000;
const ADDITIONAL_IMAGES_MAX = 10;

interface ChannelSpec {
  label: string;
  /** The channel's spelling of "in stock". */
  inStock: string;
  /**
   * Meta and TikTok require a brand on every item and advise the store's name for own-label goods; Google wants
   * no invented brand and takes identifier_exists instead.
   */
  merchantBrand: boolean;
  /** Elements the channel requires on every item: a product that cannot fill one is left out. */
  required: readonly string[];
}

const CHANNELS: Record<FeedChannel, ChannelSpec> = {
  google: {
    label: 'Google Merchant Center',
    inStock: 'in_stock',
    merchantBrand: false,
    required: ['g:id', 'title', 'description', 'link', 'g:image_link', 'g:availability', 'g:price'],
  },
  meta: {
    label: 'Meta catalogue',
    inStock: 'in stock',
    merchantBrand: true,
    required: ['g:id', 'title', 'description', 'link', 'g:image_link', 'g:availability', 'g:condition', 'g:price', 'g:brand'],
  },
  tiktok: {
    label: 'TikTok catalogue',
    inStock: 'in stock',
    merchantBrand: true,
    // sku_id is g:id in the Google RSS format TikTok accepts.
    required: ['g:id', 'title', 'description', 'link', 'g:image_link', 'g:availability', 'g:condition', 'g:price', 'g:brand'],
  },
};

const FEED_ATTRIBUTES = ['id', 'name', 'slug', 'description', 'price', 'currency', 'thumbnail', 'coverImages', 'gtin', 'brand', 'googleProductCategory'] as const;
type FeedProduct = Pick<Product, (typeof FEED_ATTRIBUTES)[number]>;

/**
 * "10.00 USD": the price (whole currency units, document 1) with as many decimals as the currency has
 * (Intl's CLDR data: 2 for USD, 0 for IDR), no grouping separators.
 */
export function formatPrice(price: number | string, currency: Currency): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 0;
  return `${Number(price).toFixed(digits)} ${currency}`;
}

function toItem(product: FeedProduct, merchant: Merchant, link: string, spec: ChannelSpec): XmlElement | undefined {
  // The thumbnail is the primary image; without one the first cover image stands in.
  const [image, ...additional] = [product.thumbnail, ...product.coverImages].filter((url): url is string => !!url);
  const brand = product.brand ?? (spec.merchantBrand ? merchant.name : undefined);
  const description = product.description ? markdownToText(product.description) : '';
  const item: XmlElement = {
    'g:id': product.id,
    title: truncateText(product.name, TITLE_MAX),
    // Every channel requires a description: a product without one is described by its name.
    description: truncateText(description || product.name, DESCRIPTION_MAX),
    link,
    'g:image_link': image,
    'g:additional_image_link': additional.length > 0 ? additional.slice(0, ADDITIONAL_IMAGES_MAX) : undefined,
    // No inventory exists until the fulfillment module's: every published product is in stock.
    'g:availability': spec.inStock,
    'g:price': formatPrice(product.price, product.currency),
    'g:condition': 'new',
    'g:brand': brand,
    'g:gtin': product.gtin ?? undefined,
    'g:google_product_category': product.googleProductCategory ?? undefined,
    'g:identifier_exists': !product.gtin && !product.brand ? 'no' : undefined,
  };
  return spec.required.every((name) => item[name] !== undefined) ? item : undefined;
}

/** One channel's feed of the published, non-archived products not excluded from feeds. */
export function createChannelFeedService({ sequelize, config }: Pick<ServiceDeps, 'sequelize' | 'config'>) {
  return {
    async feed(slugOrHost: string, channel: FeedChannel, auth: AuthContext | undefined): Promise<string> {
      const { merchant, tenant } = await resolveStorefront(sequelize, slugOrHost, auth);
      const spec = CHANNELS[channel];
      const products = await Product.findAll({
        where: { ...tenant, published: true, archived: false, feedExcluded: false },
        attributes: [...FEED_ATTRIBUTES],
        order: [['id', 'DESC']],
        limit: FEED_PRODUCT_LIMIT,
        raw: true,
      });
      const storefront = { workspaceSlug: merchant.slug, baseUrl: config.PUBLIC_BASE_URL };
      const items = products.map((p) => toItem(p, merchant, pageUrl(storefront, p.slug)!, spec)).filter((item): item is XmlElement => item !== undefined);
      return buildXml({
        rss: {
          '@_version': '2.0',
          '@_xmlns:g': 'http://base.google.com/ns/1.0',
          channel: {
            title: merchant.name,
            link: storefrontUrls(config.PUBLIC_BASE_URL, merchant).landing,
            description: `${merchant.name} products for the ${spec.label}`,
            item: items,
          },
        },
      });
    },
  };
}

export type ChannelFeedService = ReturnType<typeof createChannelFeedService>;
